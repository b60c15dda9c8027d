// Checked 64-bit arithmetic (lib/model/checked.h) and where the analysis and the
// writers use it (issue 14, defect 6): totals of stored values saturate instead of
// wrapping, and differences keep their sign.
#include "lib/model/checked.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/compare.h"
#include "lib/analysis/summary.h"
#include "lib/report/diff.h"
#include "lib/report/format.h"
#include "tests/unit/builders.h"

namespace cuscope {
namespace {

constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr uint64_t kBig = uint64_t{1} << 62;  // a time the loader accepts

TEST(Checked, SaturatingArithmetic) {
  EXPECT_EQ(model::SaturatingAdd(1, 2), 3u);
  EXPECT_EQ(model::SaturatingAdd(kU64Max - 1, 2), kU64Max);
  EXPECT_EQ(model::SaturatingMul(uint64_t{1} << 32, uint64_t{1} << 32), kU64Max);
  EXPECT_EQ(model::SaturatingMul(3, 5), 15u);
  EXPECT_EQ(model::SaturatingDifference(5, 3), 2);
  EXPECT_EQ(model::SaturatingDifference(3, 5), -2);
  EXPECT_EQ(model::SaturatingDifference(kU64Max, 0), kI64Max);
  EXPECT_EQ(model::SaturatingDifference(0, kU64Max), -kI64Max);
  EXPECT_EQ(model::Magnitude(std::numeric_limits<int64_t>::min()), uint64_t{1} << 63);
  EXPECT_EQ(model::SaturatingFromDouble(2.9), 2u);
  EXPECT_EQ(model::SaturatingFromDouble(-1), 0u);
  EXPECT_EQ(model::SaturatingFromDouble(NAN), 0u);
  EXPECT_EQ(model::SaturatingFromDouble(1e300), kU64Max);
  EXPECT_EQ(model::SaturatingFromDouble(INFINITY), kU64Max);
}

// Five launches of 2^62 ns each: the total no longer wraps to 2^62 (wrapped totals
// made each row's share 1548% and the like).
TEST(Checked, KernelTotalsSaturate) {
  testing::ProfileBuilder b;
  for (int i = 0; i < 5; ++i) b.Kernel("a", kBig, 2 * kBig);
  b.Kernel("b", kBig, 2 * kBig);
  analysis::Summary s = analysis::Summarize(b.profile());
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].stats.total_ns, kU64Max);
  EXPECT_EQ(s.kernels[1].stats.total_ns, kBig);
  for (const auto& row : s.kernels) {
    EXPECT_LE(row.time_percent, 100.0) << row.name;
    EXPECT_GE(row.time_percent, 0.0) << row.name;
  }
}

// diff's change of the total: the next total past 2^63 printed as a negative change.
TEST(Checked, DiffChangeKeepsItsSign) {
  testing::ProfileBuilder base, next;
  base.Kernel("k", 1000, 2000);
  for (int i = 0; i < 3; ++i) next.Kernel("k", kBig, 2 * kBig);
  analysis::Comparison c = analysis::Compare(base.profile(), next.profile());
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].total_change_ns(), kI64Max);
  EXPECT_GT(c.kernels[0].total_change_percent(), 0);
  std::ostringstream text;
  report::WriteComparisonText(c, "a", "b", report::ReportOptions(), text);
  EXPECT_THAT(text.str(), ::testing::HasSubstr("(+"));
  EXPECT_THAT(text.str(), ::testing::Not(::testing::HasSubstr("(-")));
}

TEST(Checked, SignedDurationOfTheMostNegative) {
  EXPECT_EQ(report::FormatSignedDuration(std::numeric_limits<int64_t>::min()), "-9223372036.855 s");
  EXPECT_EQ(report::FormatSignedDuration(-kI64Max), "-9223372036.855 s");
}

}  // namespace
}  // namespace cuscope
