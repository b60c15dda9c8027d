// The verdict as evidence: ncu's speed-of-light class, the limiting unit, latency
// and small grids, compute at its roof in a balanced kernel (lib/analysis/verdict.h),
// without a profile.
#include "lib/analysis/verdict.h"

#include <vector>

#include "gtest/gtest.h"

namespace cuscope::analysis {
namespace {

TEST(ClassifySolTest, NcuRule) {
  bool high = true;
  EXPECT_EQ(ClassifySol(59.9, 59.9, &high), SolClass::kLatency);
  EXPECT_FALSE(high);
  EXPECT_EQ(ClassifySol(86.3, 59.1, &high), SolClass::kCompute);  // FP32 SGEMM
  EXPECT_TRUE(high);
  EXPECT_EQ(ClassifySol(32.3, 94.0, &high), SolClass::kMemory);    // INT8 wmma GEMM
  EXPECT_EQ(ClassifySol(93.3, 94.5, &high), SolClass::kBalanced);  // BF16 GEMM 8192
  EXPECT_TRUE(high);
  EXPECT_EQ(ClassifySol(65, 58, &high), SolClass::kBalanced);  // within 10 points
  EXPECT_FALSE(high);
  EXPECT_EQ(ClassifySol(70, 59, nullptr), SolClass::kCompute);
  EXPECT_EQ(ClassifySol(50, 61, nullptr), SolClass::kMemory);
  EXPECT_STREQ(SolClassName(SolClass::kBalanced), "balanced");
}

TEST(ComputeVerdictTest, NoUtilisationIsUnknown) {
  VerdictInputs in;
  in.counters_measured = true;
  const Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kUnknown);
  EXPECT_EQ(v.sol_class, SolClass::kUnknown);
  EXPECT_TRUE(v.units.empty());
  EXPECT_TRUE(v.counters_measured);
}

TEST(ComputeVerdictTest, WithoutSolTheBusiestUnitLimitsAndUnitsAreRanked) {
  VerdictInputs in;
  in.units = {{Unit::kCompute, 8}, {Unit::kDram, 0.3}, {Unit::kL2, 30}, {Unit::kL1, 97}};
  const Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kL1);
  EXPECT_EQ(v.sol_class, SolClass::kUnknown);
  ASSERT_EQ(v.units.size(), 4u);
  EXPECT_EQ(v.units[0].unit, Unit::kL1);
  EXPECT_EQ(v.units[1].unit, Unit::kL2);
  EXPECT_EQ(v.units[2].unit, Unit::kCompute);
  EXPECT_EQ(v.units[3].unit, Unit::kDram);
  ASSERT_TRUE(v.limiter.has_value());
  EXPECT_EQ(v.limiter->unit, Unit::kL1);
  EXPECT_FALSE(v.small_grid);
}

TEST(ComputeVerdictTest, TiesRankInUnitOrder) {
  VerdictInputs in;
  in.units = {{Unit::kL1, 70}, {Unit::kDram, 70}};
  const Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kDram);
  EXPECT_EQ(v.units[0].unit, Unit::kDram);
  EXPECT_EQ(v.units[1].unit, Unit::kL1);
}

TEST(ComputeVerdictTest, ComputeWithinBalancedPointsOfMemoryNamesTheVerdict) {
  VerdictInputs in;
  in.units = {{Unit::kTensorPipe, 80}, {Unit::kL1, 80 + kBalancedPoints - 0.5}};
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kCompute);
  in.units[1].percent = 80 + kBalancedPoints;
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kL1);
  // Under the threshold compute never takes the place of the top.
  in.units = {{Unit::kTensorPipe, kBoundThresholdPercent - 1},
              {Unit::kL1, kBoundThresholdPercent + 1}};
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kL1);
}

TEST(ComputeVerdictTest, SolClassComesFirst) {
  VerdictInputs in;
  // BF16 GEMM 8192 on the H200: balanced, the tensor pipe at its roof.
  in.sm_pct = 93.3;
  in.memory_pct = 94.5;
  in.units = {{Unit::kTensorPipe, 93.3}, {Unit::kL1, 98.1}, {Unit::kL2, 48}, {Unit::kDram, 20}};
  in.tensor_precision = Precision::kTensorBf16;
  Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.sol_class, SolClass::kBalanced);
  EXPECT_TRUE(v.high_throughput);
  EXPECT_EQ(v.bound, Bound::kCompute);
  EXPECT_EQ(v.limiter->unit, Unit::kTensorPipe);
  // Memory class: the busiest memory unit, even though the tensor pipe is busier
  // than the DRAM.
  in.sm_pct = 32.3;
  in.memory_pct = 94.0;
  in.units = {{Unit::kTensorPipe, 13}, {Unit::kL1, 97}, {Unit::kDram, 2.3}};
  v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kL1);
  // Latency class even with one unit at 59%.
  in.sm_pct = 20;
  in.memory_pct = 59;
  in.units = {{Unit::kL1, 59}};
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kLatency);
}

TEST(ComputeVerdictTest, EquallyBusyMemoryLevelsGoToTheFarthest) {
  // A streaming elementwise kernel on the H200: DRAM and L2 within 0.1 point, in
  // either order from one run to the next; the verdict stays DRAM-bound.
  VerdictInputs in;
  in.sm_pct = 56.4;
  in.memory_pct = 88.9;
  in.units = {{Unit::kL2, 88.9}, {Unit::kDram, 88.8}, {Unit::kIssue, 49}, {Unit::kL1, 15}};
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kDram);
  in.units = {{Unit::kDram, 88.9}, {Unit::kL2, 88.8}, {Unit::kIssue, 49}, {Unit::kL1, 15}};
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kDram);
  // More than kTiePoints apart: the busier level.
  in.units = {{Unit::kL2, 88.9}, {Unit::kDram, 80}, {Unit::kL1, 15}};
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kL2);
  // L1 and L2 tied: L2.
  in.units = {{Unit::kL1, 90}, {Unit::kL2, 89}, {Unit::kDram, 10}};
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kL2);
}

TEST(ComputeVerdictTest, UnmeasuredBusiestUnitNamesTheSide) {
  VerdictInputs in;
  in.sm_pct = 86.3;  // FP32 SGEMM: issue-bound, issue not measured
  in.memory_pct = 59.1;
  in.units = {{Unit::kTensorPipe, 0}, {Unit::kL1, 58}};
  Verdict v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kCompute);
  EXPECT_EQ(v.limiter->unit, Unit::kSm);
  EXPECT_DOUBLE_EQ(v.limiter->percent, 86.3);
  in.sm_pct = 32;
  in.memory_pct = 94;
  in.units = {{Unit::kTensorPipe, 13}};
  v = ComputeVerdict(in);
  EXPECT_EQ(v.bound, Bound::kMemory);
  EXPECT_EQ(v.limiter->unit, Unit::kMemory);
}

TEST(ComputeVerdictTest, EveryUnitUnderThresholdIsLatencyAndSmallGridUnderOneWave) {
  VerdictInputs in;
  in.units = {{Unit::kCompute, 3}, {Unit::kDram, kBoundThresholdPercent - 0.1}};
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
  in.units[1].percent = 90;
  in.grid_blocks = 1;
  in.wave_blocks = 132;
  EXPECT_FALSE(ComputeVerdict(in).small_grid);
}

// Tensor precisions not counted (earlier versions' roofline set: bf16 only), as the
// H200 GEMMs of tests/data/real/h200-gemm-roofline.sqlite read.
TEST(ComputeVerdictTest, UncountedTensorPrecisionsMakeIdleAndL1OnlyVerdictsUnknown) {
  auto verdict = [](std::vector<UnitUse> units, bool uncounted, uint64_t grid = 1000) {
    VerdictInputs in;
    in.units = std::move(units);
    in.grid_blocks = grid;
    in.wave_blocks = 132;
    if (uncounted) in.unmeasured_tensor = {Precision::kTensorFp16, Precision::kTensorTf32};
    return ComputeVerdict(in);
  };
  // FP16 nvjet GEMM: L1 94%, no FP32 FLOPs.
  const std::vector<UnitUse> hsh = {{Unit::kCompute, 0}, {Unit::kL1, 94.4}, {Unit::kDram, 20}};
  EXPECT_EQ(verdict(hsh, false).bound, Bound::kL1);
  const Verdict unknown = verdict(hsh, true);
  EXPECT_EQ(unknown.bound, Bound::kUnknown);
  EXPECT_FALSE(unknown.limiter.has_value());
  EXPECT_EQ(unknown.units.size(), 3u);  // kept as evidence
  EXPECT_EQ(unknown.unmeasured_tensor.size(), 2u);
  // FP64 DMMA GEMM: every counted unit under 60%.
  const std::vector<UnitUse> dmma = {{Unit::kCompute, 0}, {Unit::kL1, 38}, {Unit::kL2, 35}};
  EXPECT_EQ(verdict(dmma, false).bound, Bound::kLatency);
  EXPECT_EQ(verdict(dmma, true).bound, Bound::kUnknown);
  // Still known: a grid under one wave, a naive SGEMM's FP32 work beside its L1, DRAM
  // at its roof, compute at its roof.
  const Verdict one_block = verdict(dmma, true, 1);
  EXPECT_EQ(one_block.bound, Bound::kLatency);
  EXPECT_TRUE(one_block.small_grid);
  EXPECT_EQ(verdict({{Unit::kCompute, 8}, {Unit::kL1, 97}}, true).bound, Bound::kL1);
  EXPECT_EQ(verdict({{Unit::kCompute, 0.8}, {Unit::kDram, 70}}, true).bound, Bound::kDram);
  EXPECT_EQ(verdict({{Unit::kCompute, 76}, {Unit::kL1, 59}}, true).bound, Bound::kCompute);
}

// With SM % and memory % the pipes are judged by them: uncounted FLOPs change nothing.
TEST(ComputeVerdictTest, UncountedTensorPrecisionsDoNotTouchSolVerdicts) {
  VerdictInputs in;
  in.sm_pct = 30;
  in.memory_pct = 20;
  in.units = {{Unit::kCompute, 0}, {Unit::kL1, 20}};
  in.grid_blocks = 1000;
  in.wave_blocks = 132;
  in.unmeasured_tensor = {Precision::kTensorFp16};
  EXPECT_EQ(ComputeVerdict(in).bound, Bound::kLatency);
}

TEST(ComputeVerdictTest, NamesAndUnits) {
  EXPECT_STREQ(VerdictName(Bound::kCompute), "compute-bound");
  EXPECT_STREQ(VerdictName(Bound::kDram), "DRAM-bound");
  EXPECT_STREQ(VerdictName(Bound::kLatency), "latency-bound");
  EXPECT_STREQ(VerdictName(Bound::kMemory), "memory-bound");
  EXPECT_STREQ(VerdictName(Bound::kUnknown), "unknown");
  EXPECT_EQ(UnitOf(Bound::kL2), Unit::kL2);
  EXPECT_EQ(UnitOf(Bound::kCompute), Unit::kCompute);
  EXPECT_TRUE(IsMemoryUnit(Unit::kMemory));
  EXPECT_FALSE(IsMemoryUnit(Unit::kTensorPipe));
}

}  // namespace
}  // namespace cuscope::analysis
