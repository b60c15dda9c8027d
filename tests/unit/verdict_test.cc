// The verdict as evidence: ranked units, the limiter, latency and small grids,
// compute ties (lib/analysis/verdict.h), without a profile.
#include "lib/analysis/verdict.h"

#include "gtest/gtest.h"

namespace cuscope::analysis {
namespace {

TEST(ComputeVerdictTest, NoUtilisationIsUnknown) {
  VerdictInputs in;
  in.counters_measured = true;
  const Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kUnknown);
  EXPECT_TRUE(v.units.empty());
  EXPECT_TRUE(v.counters_measured);
}

TEST(ComputeVerdictTest, BusiestUnitLimitsAndUnitsAreRanked) {
  VerdictInputs in;
  in.compute = 8;
  in.dram = 0.3;
  in.l2 = 30;
  in.l1 = 97;
  const Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kL1);
  ASSERT_EQ(v.units.size(), 4u);
  EXPECT_EQ(v.units[0].unit, Unit::kL1);
  EXPECT_EQ(v.units[1].unit, Unit::kL2);
  EXPECT_EQ(v.units[2].unit, Unit::kCompute);
  EXPECT_EQ(v.units[3].unit, Unit::kDram);
  EXPECT_DOUBLE_EQ(v.units[3].percent, 0.3);
  EXPECT_FALSE(v.small_grid);
}

TEST(ComputeVerdictTest, TiesRankInUnitOrder) {
  VerdictInputs in;
  in.l1 = 70;
  in.dram = 70;
  const Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kDram);
  EXPECT_EQ(v.units[0].unit, Unit::kDram);
  EXPECT_EQ(v.units[1].unit, Unit::kL1);
}

TEST(ComputeVerdictTest, ComputeWithinTiePointsOfTheTopNamesTheVerdict) {
  VerdictInputs in;
  in.compute = 80;
  in.l1 = 80 + kComputeTiePoints;
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kCompute);
  in.l1 = 80 + kComputeTiePoints + 0.5;
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kL1);
  // Under the threshold compute never takes the place of the top.
  in.compute = kBoundThresholdPercent - 1;
  in.l1 = kBoundThresholdPercent + 1;
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kL1);
}

TEST(ComputeVerdictTest, EveryUnitUnderThresholdIsLatencyAndSmallGridUnderOneWave) {
  VerdictInputs in;
  in.compute = 3;
  in.dram = kBoundThresholdPercent - 0.1;
  in.grid_blocks = 100;
  in.wave_blocks = 132;
  Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kLatency);
  EXPECT_TRUE(v.small_grid);
  EXPECT_EQ(v.units[0].unit, Unit::kDram);
  in.grid_blocks = 132;
  EXPECT_FALSE(ComputeVerdict(in).small_grid);
  in.wave_blocks = 0;  // unknown wave (regions)
  in.grid_blocks = 0;
  EXPECT_FALSE(ComputeVerdict(in).small_grid);
  // A bound kernel is never a small grid.
  in.dram = 90;
  in.grid_blocks = 1;
  in.wave_blocks = 132;
  EXPECT_FALSE(ComputeVerdict(in).small_grid);
}

TEST(ComputeVerdictTest, NamesAndUnits) {
  EXPECT_STREQ(VerdictName(Bound::kCompute), "compute-bound");
  EXPECT_STREQ(VerdictName(Bound::kDram), "DRAM-bound");
  EXPECT_STREQ(VerdictName(Bound::kLatency), "latency-bound");
  EXPECT_STREQ(VerdictName(Bound::kUnknown), "unknown");
  EXPECT_EQ(UnitOf(Bound::kL2), Unit::kL2);
  EXPECT_EQ(UnitOf(Bound::kCompute), Unit::kCompute);
}

}  // namespace
}  // namespace cuscope::analysis
