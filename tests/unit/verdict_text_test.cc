// The verdict in words (lib/report/verdict_text.h) from hand-built evidence, and the
// numbers as the counter reports print them (lib/report/number_format.h).
#include "lib/report/verdict_text.h"

#include <cmath>

#include "gtest/gtest.h"
#include "lib/report/number_format.h"

namespace cuscope::report {
namespace {

using analysis::Bound;
using analysis::Precision;
using analysis::Unit;
using analysis::Verdict;

TEST(VerdictReasonTest, BoundNamesLimiterThenComputeDramAndCloseLevels) {
  Verdict v;
  v.bound = Bound::kL1;
  v.units = {{Unit::kL1, 97}, {Unit::kL2, 30}, {Unit::kCompute, 8.047}, {Unit::kDram, 0.3}};
  v.ai_dram = 388.36;
  v.ridge_dram = 14.479;
  EXPECT_EQ(
      VerdictReason(v),
      "L1 at 97% of peak, FP32 at 8%, DRAM at 0.3%: L1-bound; AI 388 FLOP/B (DRAM), ridge 14");
  v.ridge_dram = 0;   // unknown ridge
  v.ai_dram.reset();  // no DRAM bytes or no FLOPs
  EXPECT_EQ(VerdictReason(v), "L1 at 97% of peak, FP32 at 8%, DRAM at 0.3%: L1-bound");
  EXPECT_EQ(VerdictLabel(v), "L1-bound");
}

TEST(VerdictReasonTest, ComputeTieNamesThePrecisionFirst) {
  Verdict v;
  v.bound = Bound::kCompute;
  v.precision = Precision::kTensorBf16;
  v.units = {{Unit::kL1, 74}, {Unit::kCompute, 70}, {Unit::kL2, 65}, {Unit::kDram, 5}};
  v.ai_dram = 2731;
  v.ridge_dram = 231.66;
  EXPECT_EQ(VerdictReason(v),
            "BF16 tensor at 70% of peak, L1 at 74%, L2 at 65%, DRAM at 5%: compute-bound; "
            "AI 2731 FLOP/B (DRAM), ridge 232");
}

TEST(VerdictReasonTest, LatencyListsRankedUnitsAndSmallGrid) {
  Verdict v;
  v.bound = Bound::kLatency;
  v.units = {{Unit::kL1, 2}, {Unit::kCompute, 0.04}};
  EXPECT_EQ(VerdictReason(v),
            "every unit under 60% of peak (L1 at 2%, FP32 at 0.0%): latency-bound");
  v.small_grid = true;
  v.grid_blocks = 1;
  v.wave_blocks = 4224;
  EXPECT_EQ(VerdictReason(v),
            "every unit under 60% of peak (L1 at 2%, FP32 at 0.0%): latency-bound; grid of 1 "
            "block < one wave of 4224 (small grid)");
  v.grid_blocks = 3;
  EXPECT_NE(VerdictReason(v).find("grid of 3 blocks <"), std::string::npos);
  EXPECT_EQ(VerdictLabel(v), "latency-bound (small grid)");
}

TEST(VerdictReasonTest, UnknownSaysWhetherAnythingWasMeasured) {
  Verdict v;
  EXPECT_EQ(VerdictReason(v), "no counters: verdict unknown");
  v.counters_measured = true;
  EXPECT_EQ(VerdictReason(v),
            "no utilisation measured (neither FLOP/byte counts with ceilings nor % of peak "
            "metrics): verdict unknown");
  EXPECT_EQ(VerdictLabel(v), "unknown");
}

TEST(VerdictReasonTest, UnknownNamesTheTensorPrecisionsNotCounted) {
  Verdict v;
  v.bound = Bound::kUnknown;
  v.counters_measured = true;
  v.units = {{Unit::kL1, 94.4}, {Unit::kDram, 20}, {Unit::kCompute, 0}};
  v.unmeasured_tensor = {Precision::kTensorFp16, Precision::kTensorTf32};
  EXPECT_EQ(VerdictReason(v),
            "busiest measured: L1 at 94%, DRAM at 20%, FP32 at 0%; FP16 tensor, TF32 tensor "
            "FLOPs not measured (a tensor-core kernel of those precisions reads as idle): "
            "verdict unknown");
  EXPECT_EQ(VerdictLabel(v), "unknown");
}

TEST(CountersReasonTest, RegionKernelsFollowTheVerdict) {
  analysis::KernelCounters k;
  k.region = true;
  k.verdict.bound = Bound::kLatency;
  k.verdict.units = {{Unit::kCompute, 33.7}};
  k.total_flops = 1e9;
  k.region_kernels = analysis::RegionKernels{10000, 2, 1e14, 168.6};
  EXPECT_EQ(CountersReason(k),
            "every unit under 60% of peak (FP32 at 34%): latency-bound; its kernels run 10 us of "
            "GPU time per instance (2 traced): 100.0 TFLOP/s while they run (FP32 at 169% of "
            "peak)");
  k.total_flops = 0;  // no FLOPs: the time alone
  EXPECT_EQ(CountersReason(k),
            "every unit under 60% of peak (FP32 at 34%): latency-bound; its kernels run 10 us of "
            "GPU time per instance (2 traced)");
  k.region_kernels.reset();
  EXPECT_EQ(CountersReason(k), VerdictReason(k.verdict));
}

TEST(NumberFormatTest, RatiosRatesPercentsAndDurations) {
  EXPECT_EQ(FormatRatio(0.1666), "0.17");
  EXPECT_EQ(FormatRatio(14.479), "14");
  EXPECT_EQ(FormatRatio(6.54), "6.5");
  EXPECT_EQ(FormatRatio(0), "0");
  EXPECT_EQ(FormatRatio(INFINITY), "-");
  EXPECT_EQ(FormatRate(5.930496e13, "FLOP/s"), "59.3 TFLOP/s");
  EXPECT_EQ(FormatRate(4.096e12, "B/s"), "4.1 TB/s");
  EXPECT_EQ(FormatRate(9.4887936e14, "FLOP/s"), "948.9 TFLOP/s");
  EXPECT_EQ(FormatRate(12, "B/s"), "12.0 B/s");
  EXPECT_EQ(FormatRate(NAN, "B/s"), "- B/s");
  EXPECT_EQ(FormatPercentOfPeak(90.2), "90%");
  EXPECT_EQ(FormatPercentOfPeak(0.34), "0.3%");
  EXPECT_EQ(FormatPercentOfPeak(0), "0%");
  EXPECT_EQ(FormatPercentOfPeak(INFINITY), "-");
  EXPECT_EQ(FormatNsShort(812), "812 ns");
  EXPECT_EQ(FormatNsShort(453000), "453 us");
  EXPECT_EQ(FormatNsShort(1450000), "1.45 ms");
  EXPECT_EQ(FormatNsShort(2e9), "2 s");
}

}  // namespace
}  // namespace cuscope::report
