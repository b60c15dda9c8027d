// User-supplied patterns (lib/model/pattern.h): RE2, searched, linear time, bounded,
// errors as one short line.
#include "lib/model/pattern.h"

#include <chrono>
#include <string>

#include "gtest/gtest.h"

namespace cuscope::model {
namespace {

double MillisToSearch(const Pattern& p, const std::string& name, bool* matched) {
  auto t0 = std::chrono::steady_clock::now();
  *matched = p.Search(name);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

TEST(Pattern, SearchesLikeRegexSearch) {
  Pattern p = *Pattern::Compile("gemm|saxpy");
  EXPECT_TRUE(p.Search("void ampere_sgemm_128x64_nn(float*)"));
  EXPECT_TRUE(p.Search("saxpy"));
  EXPECT_FALSE(p.Search("reduce"));
  Pattern anchored = *Pattern::Compile("^step$");
  EXPECT_TRUE(anchored.Search("step"));
  EXPECT_FALSE(anchored.Search("step 2"));
  EXPECT_TRUE(Pattern::Compile("")->Search("anything"));
  EXPECT_TRUE(Pattern::Compile("a::b<int>")->Search("ns::a::b<int>()"));
}

TEST(Pattern, RefusesWhatRe2DoesNotAcceptWithItsReason) {
  for (const char* bad : {"gemm(", "(?=a)", "(a)\\1", "a**", "[z-a]"}) {
    absl::StatusOr<Pattern> p = Pattern::Compile(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_FALSE(p.status().message().empty()) << bad;
  }
  EXPECT_NE(Pattern::Compile("gemm(").status().message().find("missing )"), std::string::npos);
}

// Issue 14: std::regex overflowed its stack on 20,000 nested parentheses.
TEST(Pattern, DeepNestingIsAShortError) {
  std::string ok = std::string(1000, '(') + "a" + std::string(1000, ')');
  EXPECT_TRUE(Pattern::Compile(ok).ok());
  EXPECT_TRUE(Pattern::Compile(std::string(2000, '\\') + "(a)").ok());      // escaped, not nested
  EXPECT_TRUE(Pattern::Compile("[" + std::string(1500, '(') + "]x").ok());  // a class
  EXPECT_TRUE(Pattern::Compile(std::string(1500, '\\') + std::string(1500, '(')).ok() == false);
  std::string deep = std::string(20000, '(') + "a" + std::string(20000, ')');
  absl::StatusOr<Pattern> p = Pattern::Compile(deep);
  ASSERT_FALSE(p.ok());
  EXPECT_LE(p.status().message().size(), 210u) << p.status();
  EXPECT_EQ(p.status().message().find('\n'), std::string::npos);
}

// A program larger than kPatternMaxMem is refused, not built.
TEST(Pattern, ProgramSizeIsBounded) {
  EXPECT_FALSE(Pattern::Compile("((((a{1000}){1000}){1000}){1000})").ok());
  EXPECT_TRUE(Pattern::Compile("a{1000}").ok());
}

// Issue 14: std::regex took 2 s for (a+)+$ on 25 characters (exponential) and over
// 20 s for .*gemm on a 20,000-character template kernel name. RE2 is linear.
TEST(Pattern, MatchesInLinearTime) {
  bool matched = true;
  Pattern nested = *Pattern::Compile("(a+)+$");
  EXPECT_LT(MillisToSearch(nested, std::string(30, 'a') + "!", &matched), 100.0);
  EXPECT_FALSE(matched);
  Pattern gemm = *Pattern::Compile(".*gemm");
  std::string name = "void kernel<" + std::string(20000, 'T') + ">()";
  EXPECT_LT(MillisToSearch(gemm, name, &matched), 100.0);
  EXPECT_FALSE(matched);
  EXPECT_LT(MillisToSearch(gemm, name + "gemm", &matched), 100.0);
  EXPECT_TRUE(matched);
}

TEST(Pattern, CompileOrNothing) {
  EXPECT_TRUE(Pattern::CompileOrNothing("x").Search("x"));
  Pattern none = Pattern::CompileOrNothing("x(");
  EXPECT_FALSE(none.Search("x("));
  EXPECT_FALSE(none.Search(""));
}

TEST(CachedPattern, KeepsTheAnswerPerName) {
  CachedPattern p(*Pattern::Compile("^step"));
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(p.Search("step 1"));
    EXPECT_FALSE(p.Search("warmup"));
  }
  std::string long_name(20000, 'x');
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(p.Search(long_name));
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 1000.0);
}

}  // namespace
}  // namespace cuscope::model
