#include "lib/report/diff.h"

#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"

namespace cuscope::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

analysis::Delta MakeDelta(const std::string& name, uint64_t base_ns, uint64_t base_count,
                          uint64_t next_ns, uint64_t next_count) {
  analysis::Delta d;
  d.name = name;
  d.base.total_ns = base_ns;
  d.base.count = base_count;
  d.next.total_ns = next_ns;
  d.next.count = next_count;
  return d;
}

// gemm 2 us -> 800 ns, relu gone, fused new, a 150-byte kernel name; one region.
analysis::Comparison MakeComparison() {
  analysis::Comparison c;
  c.base_wall_ns = 5000000;
  c.next_wall_ns = 4000000;
  c.base_kernel_ns = 2500;
  c.next_kernel_ns = 1130;
  c.base_kernel_count = 3;
  c.next_kernel_count = 4;
  c.kernels.push_back(MakeDelta("gemm", 2000, 2, 800, 2));
  c.kernels.push_back(MakeDelta("relu", 500, 1, 0, 0));
  c.kernels.push_back(MakeDelta("fused", 0, 0, 30, 1));
  c.kernels.push_back(MakeDelta(std::string(150, 'k'), 0, 0, 300, 1));
  analysis::Delta step = MakeDelta("step", 10000, 1, 6000, 1);
  step.base.kernels = 3;
  step.next.kernels = 4;
  c.regions.push_back(step);
  return c;
}

std::string Text(const analysis::Comparison& c, int top, size_t max_name_width) {
  ReportOptions options;
  options.top = top;
  options.max_name_width = max_name_width;
  options.width = 0;  // one line per row, names cut by max_name_width only
  std::ostringstream out;
  WriteComparisonText(c, "base.sqlite", "new.sqlite", options, out);
  return out.str();
}

TEST(WriteComparisonTextTest, TotalsAndRankedRows) {
  const std::string text = Text(MakeComparison(), 10, 80);
  EXPECT_THAT(text,
              HasSubstr("cuscope diff\n  Base        base.sqlite\n  New         new.sqlite\n"));
  EXPECT_THAT(text, HasSubstr("  Wall time   5.000 ms -> 4.000 ms\n"));
  EXPECT_THAT(text, HasSubstr("  Kernel time 2.500 us -> 1.130 us (-1.370 us)\n"));
  EXPECT_THAT(text, HasSubstr("  Kernels     3 -> 4\n"));
  EXPECT_THAT(text, HasSubstr("2.000 us     800 ns  -1.200 us    -60.0%       2      2  gemm\n"));
  EXPECT_THAT(text, HasSubstr("gone"));
  EXPECT_THAT(text, HasSubstr("+30 ns       new"));
  EXPECT_THAT(text, HasSubstr("Base Kernels  New Kernels  Region\n"));
  EXPECT_THAT(text, HasSubstr("3            4  step\n"));
}

TEST(WriteComparisonTextTest, TopCutsRowsWithMoreLine) {
  const std::string text = Text(MakeComparison(), 1, 80);
  EXPECT_THAT(text, HasSubstr("gemm\n  ... 3 more\n"));
  EXPECT_THAT(text, Not(HasSubstr("relu")));
  EXPECT_THAT(Text(MakeComparison(), 0, 80), Not(HasSubstr("more")));
}

TEST(WriteComparisonTextTest, MaxNameWidthCutsNamesAndZeroIsNoLimit) {
  const std::string long_name(150, 'k');
  const std::string cut = Text(MakeComparison(), 0, 80);
  EXPECT_THAT(cut, HasSubstr(" " + std::string(39, 'k') + "..." + std::string(38, 'k') + "\n"));
  EXPECT_THAT(cut, Not(HasSubstr(std::string(78, 'k'))));
  const std::string narrow = Text(MakeComparison(), 0, 20);
  EXPECT_THAT(narrow, HasSubstr(" " + std::string(9, 'k') + "..." + std::string(8, 'k') + "\n"));
  // 0 means no limit, as in the report (the diff used to cut at 80 anyway).
  const std::string full = Text(MakeComparison(), 0, 0);
  EXPECT_THAT(full, HasSubstr(" " + long_name + "\n"));
  EXPECT_THAT(full, Not(HasSubstr("...")));
}

TEST(WriteComparisonJsonTest, ParsesWithFullNamesAndTop) {
  ReportOptions options;
  options.top = 2;
  options.max_name_width = 10;  // text only
  std::ostringstream out;
  WriteComparisonJson(MakeComparison(), "base.sqlite", "new.sqlite", options, out);
  rapidjson::Document doc;
  doc.Parse(out.str().c_str());
  ASSERT_FALSE(doc.HasParseError()) << out.str();
  EXPECT_STREQ(doc["base"].GetString(), "base.sqlite");
  EXPECT_STREQ(doc["new"].GetString(), "new.sqlite");
  EXPECT_EQ(doc["wall_ns"][0].GetUint64(), 5000000u);
  EXPECT_EQ(doc["kernel_ns"][1].GetUint64(), 1130u);
  EXPECT_EQ(doc["kernel_count"][1].GetUint64(), 4u);
  ASSERT_EQ(doc["kernels"].Size(), 2u);
  EXPECT_STREQ(doc["kernels"][0]["name"].GetString(), "gemm");
  EXPECT_EQ(doc["kernels"][0]["base"]["total_ns"].GetUint64(), 2000u);
  EXPECT_EQ(doc["kernels"][0]["new"]["count"].GetUint64(), 2u);
  EXPECT_EQ(doc["kernels"][0]["change_ns"].GetInt64(), -1200);
  ASSERT_EQ(doc["regions"].Size(), 1u);
  EXPECT_EQ(doc["regions"][0]["new"]["kernels"].GetUint64(), 4u);

  options.top = 0;
  std::ostringstream all;
  WriteComparisonJson(MakeComparison(), "a", "b", options, all);
  EXPECT_THAT(all.str(), HasSubstr(std::string(150, 'k')));
}

}  // namespace
}  // namespace cuscope::report
