#include "lib/report/format.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace cuscope::report {
namespace {

TEST(FormatDurationTest, UnitsAndDecimals) {
  EXPECT_EQ(FormatDuration(0), "0 ns");
  EXPECT_EQ(FormatDuration(512), "512 ns");
  EXPECT_EQ(FormatDuration(12.5), "12.5 ns");
  EXPECT_EQ(FormatDuration(999), "999 ns");
  EXPECT_EQ(FormatDuration(1000), "1.000 us");
  EXPECT_EQ(FormatDuration(1500), "1.500 us");
  EXPECT_EQ(FormatDuration(999999), "999.999 us");
  EXPECT_EQ(FormatDuration(2.5e6), "2.500 ms");
  EXPECT_EQ(FormatDuration(3.25e9), "3.250 s");
  EXPECT_EQ(FormatDuration(7200e9), "7200.000 s");
}

TEST(FormatDurationTest, NegativeAndNonFiniteAreZero) {
  EXPECT_EQ(FormatDuration(-5), "0 ns");
  EXPECT_EQ(FormatDuration(std::nan("")), "0 ns");
  EXPECT_EQ(FormatDuration(std::numeric_limits<double>::infinity()), "0 ns");
}

TEST(FormatSignedDurationTest, SignAndMagnitude) {
  EXPECT_EQ(FormatSignedDuration(1500), "+1.500 us");
  EXPECT_EQ(FormatSignedDuration(-2667000), "-2.667 ms");
  EXPECT_EQ(FormatSignedDuration(0), "+0 ns");
}

TEST(FormatBytesTest, PowersOfAThousand) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(999), "999 B");
  EXPECT_EQ(FormatBytes(1000), "1.000 KB");
  EXPECT_EQ(FormatBytes(4096), "4.096 KB");
  EXPECT_EQ(FormatBytes(2000000), "2.000 MB");
  EXPECT_EQ(FormatBytes(1500000000), "1.500 GB");
}

TEST(FormatPercentTest, OneDecimal) {
  EXPECT_EQ(FormatPercent(15.3846), "15.4");
  EXPECT_EQ(FormatPercent(0), "0.0");
  EXPECT_EQ(FormatPercent(100), "100.0");
}

TEST(CutWithEllipsisTest, FitsOrCutsWithDots) {
  EXPECT_EQ(CutWithEllipsis("abcdef", 6), "abcdef");
  EXPECT_EQ(CutWithEllipsis("abcdefg", 6), "abc...");
  EXPECT_EQ(CutWithEllipsis("abcdefg", 4), "a...");
}

TEST(CutWithEllipsisTest, NeverInsideAUtf8Sequence) {
  const std::string s =
      "abc\xC3\xA9"
      "defg";  // "abcédefg": é is 2 bytes at 3..4
  // A cut at 4 would split é: it moves back to 3.
  EXPECT_EQ(CutWithEllipsis(s, 7), "abc...");
  // A cut at 5 falls after é.
  EXPECT_EQ(CutWithEllipsis(s, 8), "abc\xC3\xA9...");
}

TEST(FitNameTest, ZeroOrSmallWidthIsNoLimit) {
  const std::string name(200, 'x');
  EXPECT_EQ(FitName(name, 0), name);
  EXPECT_EQ(FitName(name, 3), name);
  EXPECT_EQ(FitName(name, 4), "x...");
  EXPECT_EQ(FitName(name, 5), "x...x");
}

TEST(FitNameTest, FitsUnchanged) {
  EXPECT_EQ(FitName("kernel(int, float)", 18), "kernel(int, float)");
}

TEST(FitNameTest, ParameterListCollapsesFirst) {
  EXPECT_EQ(FitName("void k<int>(float const*, int)", 20), "void k<int>(...)");
  // The last balanced list, parentheses inside it included.
  EXPECT_EQ(FitName("f(g(int), h(float, float))", 10), "f(...)");
}

TEST(FitNameTest, CollapsedThenCutInTheMiddleWhenStillTooLong) {
  EXPECT_EQ(FitName("void very_long_kernel_name<int>(float const*, int)", 16), "void ve...>(...)");
}

TEST(FitNameTest, PlainCutInTheMiddleWithoutParameterList) {
  EXPECT_EQ(FitName("step/forward/attention", 10), "step...ion");
  // A name that is only a parameter list, or has an unbalanced one, is only cut.
  EXPECT_EQ(FitName("(anonymous namespace)", 10), "(ano...ce)");
  EXPECT_EQ(FitName("broken a)b)", 8), "bro...b)");
}

// Issue 13: PyTorch's kernels of one template cut at the end became identical; the
// tail keeps them apart.
TEST(FitNameTest, KernelsOfOneTemplateStayDifferent) {
  const std::string head =
      "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
      "namespace)::launch_kernel_with_functor<";
  const std::string a = head + "at::native::AddFunctor<float>, 2>(int, float*)";
  const std::string b = head + "at::native::MulFunctor<float>, 2>(int, float*)";
  EXPECT_NE(FitName(a, 80), FitName(b, 80));
  EXPECT_EQ(FitName(a, 80).size(), 80u);
  EXPECT_NE(FitName(a, 80).find("AddFunctor<float>, 2>(...)"), std::string::npos) << FitName(a, 80);
}

TEST(CutInTheMiddleTest, NeverInsideAUtf8Sequence) {
  const std::string s =
      "ab\xC3\xA9"
      "cdefgh\xC3\xA9z";  // 14 bytes
  for (size_t n = 5; n < s.size(); ++n) {
    const std::string cut = CutInTheMiddle(s, n);
    EXPECT_LE(cut.size(), n);
    for (size_t i = 0; i + 1 < cut.size(); ++i) {
      if (cut.compare(i, 3, "...") == 0) {
        EXPECT_NE(static_cast<unsigned char>(cut[i + 3 < cut.size() ? i + 3 : i]) & 0xC0, 0x80u);
        break;
      }
    }
  }
  EXPECT_EQ(CutInTheMiddle(s, 14), s);
}

TEST(ShownRowsTest, TopOrAll) {
  EXPECT_EQ(ShownRows(12, 10), 10u);
  EXPECT_EQ(ShownRows(3, 10), 3u);
  EXPECT_EQ(ShownRows(12, 0), 12u);
  EXPECT_EQ(ShownRows(12, -1), 12u);
  EXPECT_EQ(ShownRows(0, 5), 0u);
}

TEST(TextTableTest, RightAlignedColumnsLeftAlignedName) {
  TextTable t({"Time", "N", "Name"});
  t.AddRow({"1.000 us", "12", "gemm"});
  t.AddRow({"5 ns", "1", "a_longer_name"});
  std::ostringstream out;
  t.Write(out);
  EXPECT_EQ(out.str(),
            "      Time   N  Name\n"
            "  --------  --  ----\n"
            "  1.000 us  12  gemm\n"
            "      5 ns   1  a_longer_name\n");
}

TEST(TextTableTest, RuleUnderNameIsAtLeastFourDashes) {
  TextTable t({"N", "Op"});
  t.AddRow({"1", "x"});
  std::ostringstream out;
  t.Write(out);
  EXPECT_EQ(out.str(), "  N  Op\n  -  ----\n  1  x\n");
}

TEST(TextTableTest, DetailsIndentedToNameColumnOrGivenIndent) {
  TextTable t({"Total", "Region"});
  t.AddRow({"3 ns", "step"});
  t.AddDetail("1 ns  1x  k");
  std::ostringstream out;
  t.Write(out);
  // The name column starts at 2 + 5 + 2 = 9; details 2 further in.
  EXPECT_EQ(out.str(),
            "  Total  Region\n"
            "  -----  ------\n"
            "   3 ns  step\n"
            "           1 ns  1x  k\n");

  TextTable fixed({"Total", "Region"}, /*detail_indent=*/4);
  fixed.AddRow({"3 ns", "step"});
  fixed.AddDetail("why");
  std::ostringstream out2;
  fixed.Write(out2);
  EXPECT_EQ(out2.str(), "  Total  Region\n  -----  ------\n   3 ns  step\n    why\n");
}

TEST(WriteMoreLineTest, OnlyWhenRowsWereLeftOut) {
  std::ostringstream out;
  WriteMoreLine(12, 10, "kernels", out);
  WriteMoreLine(3, 3, "kernels", out);
  WriteMoreLine(5, 1, "", out);
  EXPECT_EQ(out.str(), "  ... 2 more kernels\n  ... 4 more\n");
}

}  // namespace
TEST(WrappedTest, BreaksAtSpacesWithinTheWidth) {
  EXPECT_EQ(Wrapped("aaa bbb ccc ddd eee fff ggg hhh", 20, 2, 4),
            "  aaa bbb ccc ddd\n    eee fff ggg hhh\n");
  EXPECT_EQ(Wrapped("short", 20, 2, 4), "  short\n");
  EXPECT_EQ(Wrapped("no limit at all here", 0, 1, 4), " no limit at all here\n");
  // A word longer than the line is cut inside it.
  EXPECT_EQ(Wrapped(std::string(30, 'x'), 20, 0, 0),
            std::string(20, 'x') + "\n" + std::string(10, 'x') + "\n");
}

TEST(TextTableTest, NamesGoAboveTheirNumbersAndColumnsDropToFitTheWidth) {
  TextTable t({"Total", "Median", "Name"});
  t.Fit(24, 0);
  t.SetDroppable({"Median"});
  t.AddRow({"1.000 ms", "1234567890123", "a_kernel_name_longer_than_the_row"});
  std::ostringstream out;
  t.Write(out);
  EXPECT_EQ(out.str(),
            "     Total\n"
            "  --------\n"
            "  a_kernel_n...n_the_row\n"
            "  1.000 ms\n"
            "  (Median left out to\n"
            "    fit 24 columns; see\n"
            "    --width)\n");
  TextTable wide({"Total", "Name"});
  wide.Fit(100, 0);
  wide.AddRow({"1.000 ms", "k"});
  std::ostringstream one;
  wide.Write(one);
  EXPECT_EQ(one.str(), "     Total  Name\n  --------  ----\n  1.000 ms  k\n");
}

}  // namespace cuscope::report
