#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/model/metrics.h"
#include "lib/report/number_format.h"
#include "lib/report/verdict_text.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;
using cuscope::testing::ProfileBuilder;
using report::FormatRatio;
using ::testing::HasSubstr;

// The reason line the reports print for a signature.
std::string Reason(const KernelCounters& k) { return report::CountersReason(k); }

// An H200-like device, by hand:
//   SM clock 1.755 GHz
//   FP32: ffma peak 16896 thread-inst/cycle (132 SMs x 128) x 2 x 1.755e9 = 5.930496e13
//   FP64: dfma peak  8448 x 2 x 1.755e9 = 2.965248e13
//   FP16: hfma peak 16896 x 4 x 1.755e9 = 1.1860992e14 (half2 fma = 4 FLOPs)
//   bf16 tensor: the metric peak 1081344 ops/cycle is 2:4-sparse (as measured on
//   the H200); dense = half, 540672 (132 x 4096) x 1.755e9 = 9.4887936e14
//   DRAM: 2560 B/cycle x 1.6e9 = 4.096e12 B/s
//   L2:   5120 B/cycle x 1.755e9 = 8.9856e12 B/s
//   L1:  16896 B/cycle x 1.755e9 = 2.965248e13 B/s
constexpr double kSmClock = 1.755e9;
constexpr double kPeakFp32 = 5.930496e13;
constexpr double kPeakFp64 = 2.965248e13;
constexpr double kPeakFp16 = 1.1860992e14;
constexpr double kPeakTensor = 9.4887936e14;
constexpr double kPeakDram = 4.096e12;
constexpr double kPeakL2 = 8.9856e12;
constexpr double kPeakL1 = 2.965248e13;

using Values = std::vector<std::pair<std::string, double>>;

Values H200Peaks() {
  return {{m::kSmClock, kSmClock}, {m::kDramClock, 1.6e9},
          {m::kL2Clock, kSmClock}, {m::kL1Clock, kSmClock},
          {m::kFfmaPeak, 16896},   {m::kDfmaPeak, 8448},
          {m::kHfmaPeak, 16896},   {m::kTensorBf16Peak, 1081344},
          {m::kDramPeak, 2560},    {m::kL2Peak, 5120},
          {m::kL1Peak, 16896}};
}

void AddDeviceMetrics(model::Profile& p, const Values& values, uint32_t device = 0) {
  for (const auto& [name, v] : values) {
    model::DeviceMetric d;
    d.device_id = device;
    d.metric = p.strings.Intern(name);
    d.value = v;
    p.device_metrics.push_back(d);
  }
}

model::CounterSet& AddSet(model::Profile& p, const std::string& name, model::Dim3 grid,
                          model::Dim3 block, const Values& values,
                          std::vector<uint32_t> correlations = {},
                          model::CounterStrategy strategy = model::CounterStrategy::kRotate) {
  model::CounterSet s;
  s.name = p.strings.Intern(name);
  s.grid = grid;
  s.block = block;
  s.strategy = strategy;
  s.correlation_ids = std::move(correlations);
  for (const auto& [metric, v] : values) s.values.emplace_back(p.strings.Intern(metric), v);
  p.counters.push_back(std::move(s));
  return p.counters.back();
}

const KernelCounters* Find(const std::vector<KernelCounters>& all, const std::string& name) {
  for (const KernelCounters& k : all) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

// --- Ceilings ------------------------------------------------------------------------

TEST(CeilingsTest, PerCyclePeaksTimesClocks) {
  ProfileBuilder b;
  AddDeviceMetrics(b.profile(), H200Peaks());
  const Ceilings c = ComputeCeilings(b.profile(), 0);
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.device_id, 0u);
  EXPECT_DOUBLE_EQ(c.sm_clock_hz, 1.755e9);
  EXPECT_DOUBLE_EQ(PeakFlops(c, Precision::kFp32), kPeakFp32);
  EXPECT_DOUBLE_EQ(PeakFlops(c, Precision::kFp64), kPeakFp64);
  EXPECT_DOUBLE_EQ(PeakFlops(c, Precision::kFp16), kPeakFp16);
  EXPECT_DOUBLE_EQ(PeakFlops(c, Precision::kTensorBf16), kPeakTensor);
  EXPECT_DOUBLE_EQ(c.peak_dram_bytes_per_s, kPeakDram);
  EXPECT_DOUBLE_EQ(c.peak_l2_bytes_per_s, kPeakL2);
  EXPECT_DOUBLE_EQ(c.peak_l1_bytes_per_s, kPeakL1);
}

TEST(CeilingsTest, MedianOverCounterSetsWhenNoDeviceMetrics) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  // Three sets measured the SM clock at 1.7, 1.8 and 1.755 GHz: the median is 1.755.
  for (double clock : {1.7e9, 1.8e9, 1.755e9}) {
    AddSet(p, "k", {1, 1, 1}, {32, 1, 1},
           {{m::kSmClock, clock},
            {m::kFfmaPeak, 16896},
            {m::kDramPeak, 2560},
            {m::kDramClock, 1.6e9}});
  }
  // A set of another device does not count.
  AddSet(p, "k", {1, 1, 1}, {32, 1, 1}, {{m::kSmClock, 9e9}}).device_id = 1;
  const Ceilings c = ComputeCeilings(p, 0);
  EXPECT_TRUE(c.valid);
  EXPECT_DOUBLE_EQ(c.sm_clock_hz, 1.755e9);
  EXPECT_DOUBLE_EQ(PeakFlops(c, Precision::kFp32), kPeakFp32);
  EXPECT_DOUBLE_EQ(c.peak_dram_bytes_per_s, kPeakDram);
  // Missing inputs: no ceiling.
  EXPECT_EQ(PeakFlops(c, Precision::kFp64), 0);
  EXPECT_EQ(c.peak_l2_bytes_per_s, 0);
  EXPECT_EQ(PeakFlops(c, Precision::kTensorBf16), 0);
  // An even count of samples: the mean of the two middle ones.
  AddSet(p, "k", {1, 1, 1}, {32, 1, 1}, {{m::kSmClock, 1.9e9}});
  EXPECT_DOUBLE_EQ(ComputeCeilings(p, 0).sm_clock_hz, (1.755e9 + 1.8e9) / 2);
}

TEST(CeilingsTest, DeviceMetricsWinOverCounterSets) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  AddSet(p, "k", {1, 1, 1}, {32, 1, 1}, {{m::kSmClock, 1.0e9}, {m::kFfmaPeak, 1}});
  const Ceilings c = ComputeCeilings(p, 0);
  EXPECT_DOUBLE_EQ(c.sm_clock_hz, 1.755e9);
  EXPECT_DOUBLE_EQ(PeakFlops(c, Precision::kFp32), kPeakFp32);
}

TEST(CeilingsTest, MissingClockLeavesThatCeilingOut) {
  ProfileBuilder b;
  Values peaks = H200Peaks();
  peaks.erase(peaks.begin() + 1);  // no DRAM clock
  AddDeviceMetrics(b.profile(), peaks);
  const Ceilings c = ComputeCeilings(b.profile(), 0);
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.peak_dram_bytes_per_s, 0);
  EXPECT_DOUBLE_EQ(c.peak_l2_bytes_per_s, kPeakL2);
  // A device with nothing measured.
  EXPECT_FALSE(ComputeCeilings(b.profile(), 5).valid);
  // Only devices with counters or device metrics are listed.
  const std::vector<Ceilings> all = ComputeAllCeilings(b.profile());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].device_id, 0u);
}

// --- FLOP counting -------------------------------------------------------------------

TEST(FlopCountingTest, PerPrecisionConventions) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  AddSet(p, "mix", {4, 1, 1}, {128, 1, 1},
         {{m::kDuration, 1000},
          {m::kFadd, 10},
          {m::kFmul, 20},
          {m::kFfma, 30},  // 10 + 20 + 2*30 = 90
          {m::kDadd, 1},
          {m::kDmul, 2},
          {m::kDfma, 3},  // 1 + 2 + 2*3 = 9
          {m::kHadd, 5},
          {m::kHmul, 6},
          {m::kHfma, 7},  // 2*5 + 2*6 + 4*7 = 50
          {m::kTensorBf16Gmma, 1000},
          {m::kTensorBf16Mma, 24},  // 1024 (ops are FLOPs)
          {m::kDramBytes, 0},
          {m::kL2Bytes, 100},
          {m::kL1Bytes, 400}});
  const std::vector<KernelCounters> all = AnalyzeCounters(p);
  ASSERT_EQ(all.size(), 1u);
  const KernelCounters& k = all[0];
  EXPECT_DOUBLE_EQ(k.fp32_flops, 90);
  EXPECT_DOUBLE_EQ(k.fp64_flops, 9);
  EXPECT_DOUBLE_EQ(k.fp16_flops, 50);
  EXPECT_DOUBLE_EQ(k.tensor_flops, 1024);
  EXPECT_DOUBLE_EQ(k.total_flops, 1173);
  // Per second over 1000 ns.
  EXPECT_DOUBLE_EQ(k.fp32_flops_per_s, 90e6);
  EXPECT_DOUBLE_EQ(k.total_flops_per_s, 1173e6);
  EXPECT_DOUBLE_EQ(k.l2_bytes_per_s, 100e6);
  // Intensity: total FLOPs per byte; no DRAM bytes -> infinite, printed "-".
  EXPECT_TRUE(std::isinf(k.ai_dram));
  EXPECT_EQ(FormatRatio(k.ai_dram), "-");
  EXPECT_DOUBLE_EQ(k.ai_l2, 11.73);
  EXPECT_DOUBLE_EQ(k.ai_l1, 1173.0 / 400);
}

// SAXPY y = a*x + y on N = 2^26 floats: one ffma per element (2N FLOPs), 12N bytes
// from DRAM (read x and y, write y). At 218453 ns, DRAM moves
// 805306368 B / 218453e-9 s = 3.6864e12 B/s = 90.0% of 4.096e12; FP32 does
// 134217728 / 218453e-9 = 6.144e11 FLOP/s = 1.04% of 5.93e13.
TEST(VerdictTest, SaxpyIsDramBound) {
  constexpr double kN = 67108864;  // 2^26
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  AddSet(p, "saxpy", {262144, 1, 1}, {256, 1, 1},
         {{m::kDuration, 218453},
          {m::kFfma, kN},
          {m::kFadd, 0},
          {m::kFmul, 0},
          {m::kDramBytes, 12 * kN},
          {m::kL2Bytes, 12 * kN},
          {m::kL1Bytes, 12 * kN}},
         {7});
  const std::vector<KernelCounters> all = AnalyzeCounters(p);
  ASSERT_EQ(all.size(), 1u);
  const KernelCounters& k = all[0];
  EXPECT_DOUBLE_EQ(k.fp32_flops, 2 * kN);
  EXPECT_DOUBLE_EQ(k.dram_bytes, 12 * kN);
  EXPECT_NEAR(k.dram_bytes_per_s, 3.6864e12, 1e7);  // 218453 ns is 1/3 ns short
  EXPECT_NEAR(k.pct_dram.value(), 90.0, 1e-3);
  EXPECT_NEAR(k.pct_fp32, 1.036, 1e-3);
  EXPECT_NEAR(k.pct_l2.value(), 41.03, 1e-2);  // 3.6864e12 / 8.9856e12
  EXPECT_NEAR(k.pct_l1.value(), 12.43, 1e-2);  // 3.6864e12 / 2.965248e13
  EXPECT_NEAR(k.ai_dram, 1.0 / 6, 1e-12);
  EXPECT_NEAR(k.ridge_dram, 14.479, 1e-3);  // 5.930496e13 / 4.096e12
  EXPECT_NEAR(k.ridge_l2, 6.6, 1e-9);       // 5.930496e13 / 8.9856e12
  EXPECT_NEAR(k.ridge_l1, 2.0, 1e-9);
  EXPECT_EQ(k.dominant, Precision::kFp32);
  EXPECT_EQ(k.verdict.bound, Bound::kDram);
  EXPECT_FALSE(k.verdict.small_grid);
  EXPECT_THAT(Reason(k), HasSubstr("DRAM at 90% of peak"));
  EXPECT_EQ(Reason(k),
            "DRAM at 90% of peak, FP32 at 1%: DRAM-bound; AI 0.17 FLOP/B (DRAM), ridge 14");
}

TEST(VerdictTest, MeasuredPercentOfPeakIsPreferred) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  // Bytes say 10% of the DRAM peak; the measured pct metric says 90%.
  AddSet(
      p, "k", {1000, 1, 1}, {256, 1, 1},
      {{m::kDuration, 1e6}, {m::kFfma, 1e6}, {m::kDramBytes, 4.096e11 * 1e-3}, {m::kDramPct, 90}});
  const KernelCounters k = AnalyzeCounters(p).at(0);
  EXPECT_NEAR(k.dram_bytes_per_s, 4.096e11, 1);
  EXPECT_DOUBLE_EQ(k.pct_dram.value(), 90);
  EXPECT_EQ(k.verdict.bound, Bound::kDram);
}

// Naive SGEMM, n = 2048: n^3 ffma = 2n^3 FLOPs = 17179869184. In 3.6 ms that is
// 4.772e12 FLOP/s = 8.05% of FP32; DRAM moves 44236800 B = 1.2288e10 B/s = 0.3%;
// the LSU wavefronts are at 97% (uncoalesced / broadcast loads): L1-bound, although
// the DRAM intensity (388 FLOP/B) is far right of the ridge.
TEST(VerdictTest, NaiveSgemmIsL1Bound) {
  constexpr double kN = 2048;
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  AddSet(p, "sgemm_naive", {64, 64, 1}, {32, 32, 1},
         {{m::kDuration, 3.6e6},
          {m::kFfma, kN * kN * kN},
          {m::kDramBytes, 44236800},
          {m::kL2Bytes, 1.2e10},
          {m::kL1Bytes, 4e10},
          {m::kL1Pct, 40},
          {m::kL1WavefrontsPct, 97}});
  const KernelCounters k = AnalyzeCounters(p).at(0);
  EXPECT_DOUBLE_EQ(k.fp32_flops, 2 * kN * kN * kN);
  EXPECT_DOUBLE_EQ(k.fp32_flops, 17179869184.0);
  EXPECT_NEAR(k.pct_fp32, 8.047, 1e-3);
  EXPECT_NEAR(k.pct_dram.value(), 0.3, 1e-9);
  EXPECT_DOUBLE_EQ(k.pct_l1.value(), 97);  // max(bytes pct 40, wavefronts 97)
  EXPECT_NEAR(k.ai_dram, 388.36, 1e-2);
  EXPECT_EQ(k.verdict.bound, Bound::kL1);
  EXPECT_EQ(
      Reason(k),
      "L1 at 97% of peak, FP32 at 8%, DRAM at 0.3%: L1-bound; AI 388 FLOP/B (DRAM), ridge 14");
}

// One block of 32 threads, everything idle: latency-bound, and the grid (1 block)
// is far under one wave (132 SMs x 32 blocks of one warp each = 4224).
TEST(VerdictTest, OneBlockKernelIsLatencyBoundSmallGrid) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  model::KernelRecord& rec = b.Kernel("tiny", 1000, 6000, 7, 42);
  rec.grid = {1, 1, 1};
  rec.block = {32, 1, 1};
  rec.registers_per_thread = 32;
  AddSet(p, "tiny", {1, 1, 1}, {32, 1, 1},
         {{m::kDuration, 5000},
          {m::kFfma, 1000},
          {m::kDramBytes, 4096},
          {m::kL2Bytes, 8192},
          {m::kL1Bytes, 8192},
          {m::kL1WavefrontsPct, 2}},
         {42});
  const KernelCounters k = AnalyzeCounters(p).at(0);
  EXPECT_LT(k.pct_compute.value(), 10);
  EXPECT_LT(k.pct_dram.value(), 10);
  EXPECT_EQ(k.verdict.bound, Bound::kLatency);
  EXPECT_TRUE(k.verdict.small_grid);
  EXPECT_TRUE(k.theoretical.valid);
  EXPECT_EQ(k.theoretical.blocks_per_sm, 32);
  EXPECT_EQ(k.theoretical.limiter, "blocks");
  EXPECT_EQ(k.wave_blocks, 132u * 32u);
  EXPECT_THAT(Reason(k), HasSubstr("every unit under 60% of peak"));
  EXPECT_THAT(Reason(k), HasSubstr("latency-bound"));
  EXPECT_THAT(Reason(k), HasSubstr("grid of 1 block < one wave of 4224 (small grid)"));
  EXPECT_EQ(k.launches, 1u);
  EXPECT_EQ(k.measured_launches, 1u);
}

TEST(VerdictTest, WaveIsSmCountWhenOccupancyUnknown) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  // No kernel record: the launch configuration is unknown, one wave = 132 blocks.
  AddSet(p, "k", {100, 1, 1}, {256, 1, 1}, {{m::kDuration, 5000}, {m::kDramPct, 1}});
  const KernelCounters k = AnalyzeCounters(p).at(0);
  EXPECT_FALSE(k.theoretical.valid);
  EXPECT_EQ(k.wave_blocks, 132u);
  EXPECT_TRUE(k.verdict.small_grid);
  EXPECT_EQ(k.verdict.bound, Bound::kLatency);
}

// A bf16 GEMM M = N = K = 8192 on the tensor cores: 2 x 8192^3 = 1.099511627776e12
// FLOPs (counted as tensor ops). In 1655351 ns that is 6.642e14 FLOP/s = 70% of the
// 9.4887936e14 roof.
TEST(VerdictTest, Bf16GemmIsComputeBound) {
  constexpr double kFlops = 2.0 * 8192 * 8192 * 8192;
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  AddSet(p, "gemm_bf16", {132, 1, 1}, {384, 1, 1},
         {{m::kDuration, 1655351},
          {m::kTensorBf16Gmma, kFlops},
          {m::kTensorBf16Mma, 0},
          {m::kFfma, 1e6},
          {m::kDramBytes, 402653184},
          {m::kL2Bytes, 5e9},
          {m::kL1Pct, 20}});
  const KernelCounters k = AnalyzeCounters(p).at(0);
  EXPECT_DOUBLE_EQ(k.tensor_flops, kFlops);
  EXPECT_DOUBLE_EQ(k.tensor_flops_per_s, kFlops / 1655351e-9);
  EXPECT_NEAR(k.pct_tensor, 70.0, 1e-3);
  EXPECT_NEAR(k.pct_compute.value(), 70.0, 1e-3);
  EXPECT_EQ(k.dominant, Precision::kTensorBf16);
  EXPECT_NEAR(k.ridge_dram, 231.66, 1e-2);  // 9.4887936e14 / 4.096e12
  EXPECT_EQ(k.verdict.bound, Bound::kCompute);
  EXPECT_THAT(Reason(k), HasSubstr("BF16 tensor at 70% of peak"));
  EXPECT_THAT(Reason(k), HasSubstr(": compute-bound; AI 2731 FLOP/B (DRAM), ridge 232"));
}

// --- Aggregation -----------------------------------------------------------------------

TEST(AggregationTest, SetsOfOneSignatureAreAveraged) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  AddSet(p, "agg", {64, 1, 1}, {128, 1, 1}, {{m::kDuration, 1000}, {m::kFfma, 100}}, {1});
  AddSet(p, "agg", {64, 1, 1}, {128, 1, 1}, {{m::kDuration, 2000}, {m::kFfma, 300}}, {2});
  model::CounterSet& third = AddSet(p, "agg", {64, 1, 1}, {128, 1, 1},
                                    {{m::kDuration, 3000}, {m::kFfma, 500}, {m::kDramBytes, 64}},
                                    {3, 4}, model::CounterStrategy::kKernelReplay);
  third.passes = 3;
  // The same name with another grid is another signature.
  AddSet(p, "agg", {128, 1, 1}, {128, 1, 1}, {{m::kDuration, 10}}, {5});

  // Kernel records: "agg" 64x128 launched 10 times, 5 us each when not measured and
  // 20 us when measured (4 of them): its kernel time is the 6 unmeasured launches', 30 us
  // (the kernels table's rule). "other" (no counters) is left out; "agg" 128x128
  // launched once for 60 us ranks first.
  for (uint32_t i = 0; i < 10; ++i) {
    const bool measured = i < 4;
    model::KernelRecord& r =
        b.Kernel("agg", 100000 * (i + 1), 100000 * (i + 1) + (measured ? 20000 : 5000), 7, i + 1);
    r.grid = {64, 1, 1};
    r.block = {128, 1, 1};
    if (measured) r.flags |= model::kKernelCountersMeasured;
  }
  model::KernelRecord& big = b.Kernel("agg", 5000000, 5060000, 7, 5);
  big.grid = {128, 1, 1};
  big.block = {128, 1, 1};
  b.Kernel("other", 6000000, 6100000, 7, 99);

  const std::vector<KernelCounters> all = AnalyzeCounters(p);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].grid.x, 128u);
  EXPECT_EQ(all[0].total_time_ns, 60000u);
  const KernelCounters& k = all[1];
  EXPECT_EQ(k.name, "agg");
  EXPECT_EQ(k.sets, 3u);
  EXPECT_EQ(k.measured_launches, 4u);
  EXPECT_EQ(k.launches, 10u);
  EXPECT_EQ(k.total_time_ns, 30000u);
  EXPECT_FALSE(k.time_estimated);
  EXPECT_EQ(k.max_passes, 3u);
  EXPECT_EQ(k.StrategyNames(), "rotate+kernel replay");
  EXPECT_DOUBLE_EQ(k.duration_ns, 2000);
  EXPECT_DOUBLE_EQ(k.value(m::kFfma), 300);
  EXPECT_DOUBLE_EQ(k.fp32_flops, 600);
  // A metric in one set only is the average over that set.
  EXPECT_DOUBLE_EQ(k.dram_bytes, 64);
  ASSERT_TRUE(k.launch_config.has_value());
  EXPECT_EQ(k.launch_config->registers_per_thread, 32u);
  // Time %: of the kernel time (60 + 30 + 100 us), as in the kernels table.
  EXPECT_NEAR(k.time_percent, 100.0 * 30 / 190, 1e-9);
}

// --- Optional sections -------------------------------------------------------------------

TEST(SectionsTest, OccupancyStallsMemorySol) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  const std::string stall = m::kStallPrefix;
  b.Kernel("k", 1000, 2000, 7, 9).registers_per_thread = 64;
  AddSet(p, "k", {128, 1, 1}, {256, 1, 1},
         {{m::kDuration, 1000},
          {m::kWarpsActivePct, 45},
          {m::kWarpsActivePerCycle, 28.8},
          {m::kWarpsActive, 8},
          {stall + "long_scoreboard.avg", 4},
          {stall + "barrier.avg", 1},
          {stall + "wait.avg", 2},
          {m::kSharedLdBankConflicts, 300},
          {m::kSharedLdInst, 100},
          {m::kSharedStBankConflicts, 0},
          {m::kSharedStInst, 50},
          {m::kGlobalLdSectors, 3200},
          {m::kGlobalLdRequests, 100},
          {m::kGlobalStSectors, 400},
          {m::kGlobalStRequests, 100},
          {m::kSmThroughputPct, 30},
          {m::kMemThroughputPct, 75},
          {m::kDramThroughputPct, 75},
          {m::kL2ThroughputPct, 50},
          {m::kL1ThroughputPct, 40},
          {m::kTensorPipePct, 0},
          {m::kFmaPipePct, 12}},
         {9});
  const KernelCounters k = AnalyzeCounters(p).at(0);
  ASSERT_TRUE(k.achieved_occupancy.has_value());
  EXPECT_DOUBLE_EQ(k.achieved_occupancy->percent, 45);
  EXPECT_DOUBLE_EQ(k.achieved_occupancy->warps_per_sm, 28.8);
  // 256 threads x 64 registers: 2048 registers a warp, 8 warps per sub-partition,
  // 32 warps = 4 blocks per SM, 50%.
  ASSERT_TRUE(k.theoretical.valid);
  EXPECT_EQ(k.theoretical.blocks_per_sm, 4);
  EXPECT_EQ(k.theoretical.limiter, "registers");
  ASSERT_EQ(k.stalls.size(), 3u);
  EXPECT_EQ(k.stalls[0].reason, "long_scoreboard");
  EXPECT_DOUBLE_EQ(k.stalls[0].percent, 50);
  EXPECT_EQ(k.stalls[1].reason, "wait");
  EXPECT_DOUBLE_EQ(k.stalls[1].percent, 25);
  EXPECT_EQ(k.stalls[2].reason, "barrier");
  ASSERT_TRUE(k.memory.has_value());
  EXPECT_DOUBLE_EQ(k.memory->shared_ld_conflicts_per_inst, 3);
  EXPECT_DOUBLE_EQ(k.memory->shared_st_conflicts_per_inst, 0);
  EXPECT_DOUBLE_EQ(k.memory->global_ld_sectors_per_request, 32);
  EXPECT_DOUBLE_EQ(k.memory->global_st_sectors_per_request, 4);
  ASSERT_TRUE(k.sol.has_value());
  EXPECT_EQ(k.sol->highest_unit, "DRAM");
  EXPECT_DOUBLE_EQ(k.sol->memory_pct, 75);
  // Only SOL metrics for utilisation: DRAM throughput 75% names the verdict.
  EXPECT_EQ(k.pct_dram, 75);
  EXPECT_EQ(k.verdict.bound, Bound::kDram);
}

// --- Occupancy calculator ------------------------------------------------------------------

model::DeviceInfo H100Limits() {
  model::DeviceInfo d;
  d.sm_count = 132;
  d.warp_size = 32;
  d.max_warps_per_sm = 64;
  d.max_blocks_per_sm = 32;
  d.max_registers_per_sm = 65536;
  d.max_registers_per_block = 65536;
  d.max_shared_memory_per_sm = 233472;
  d.max_threads_per_block = 1024;
  return d;
}

TEST(OccupancyTest, WarpsLimit) {
  // 2048 threads per SM: 8 blocks of 256 (registers would also allow 8: tie -> warps).
  const Occupancy o = TheoreticalOccupancy(H100Limits(), 256, 32, 0);
  ASSERT_TRUE(o.valid);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_EQ(o.warps_per_sm, 64);
  EXPECT_DOUBLE_EQ(o.percent, 100);
  EXPECT_EQ(o.limiter, "warps");
  EXPECT_EQ(o.limit_warps, 8);
  EXPECT_EQ(o.limit_registers, 8);
  EXPECT_EQ(o.limit_blocks, 32);
}

TEST(OccupancyTest, RegistersLimit) {
  // 128 registers x 256 threads = 32768 registers a block: 2 blocks.
  const Occupancy o = TheoreticalOccupancy(H100Limits(), 256, 128, 0);
  ASSERT_TRUE(o.valid);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.warps_per_sm, 16);
  EXPECT_DOUBLE_EQ(o.percent, 25);
  EXPECT_EQ(o.limiter, "registers");
}

TEST(OccupancyTest, RegistersRoundUpToEight) {
  // 33 registers -> 40 (1280 a warp): 16384 / 1280 = 12 warps per sub-partition,
  // 48 warps, 6 blocks of 8 warps; the same as 40 registers.
  const Occupancy o33 = TheoreticalOccupancy(H100Limits(), 256, 33, 0);
  const Occupancy o40 = TheoreticalOccupancy(H100Limits(), 256, 40, 0);
  EXPECT_EQ(o33.blocks_per_sm, 6);
  EXPECT_EQ(o40.blocks_per_sm, 6);
  EXPECT_DOUBLE_EQ(o33.percent, 75);
  // 255 registers -> 256 (8192 a warp): 2 warps per sub-partition, 8 warps, 1 block.
  const Occupancy o255 = TheoreticalOccupancy(H100Limits(), 256, 255, 0);
  EXPECT_EQ(o255.blocks_per_sm, 1);
  EXPECT_EQ(o255.limiter, "registers");
}

TEST(OccupancyTest, ALaunchRecordTakesItsBlockRegistersAndBothSharedSizes) {
  model::KernelRecord k;
  k.block = {256, 1, 1};
  k.registers_per_thread = 32;
  k.static_shared_bytes = 60 * 1024;
  k.dynamic_shared_bytes = 40 * 1024;
  const Occupancy o = LaunchOccupancy(H100Limits(), k);
  ASSERT_TRUE(o.valid);
  EXPECT_EQ(o.blocks_per_sm, 2);  // 100 KB a block, as SharedMemoryLimit below
  EXPECT_EQ(o.limiter, "shared memory");
  EXPECT_EQ(WaveBlocks(132, o), 264u);
  // Made from its launch: the kernel's registers are not known, so no occupancy, and a
  // wave is one block an SM.
  k.flags |= model::kKernelFromLaunch;
  EXPECT_FALSE(LaunchOccupancy(H100Limits(), k).valid);
  EXPECT_EQ(WaveBlocks(132, LaunchOccupancy(H100Limits(), k)), 132u);
}

TEST(OccupancyTest, SharedMemoryLimit) {
  // 100 KB + 1 KB reserved = 103424 bytes a block: 233472 / 103424 = 2 blocks.
  const Occupancy o = TheoreticalOccupancy(H100Limits(), 256, 32, 100 * 1024);
  ASSERT_TRUE(o.valid);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.warps_per_sm, 16);
  EXPECT_EQ(o.limiter, "shared memory");
  // 48 KB + 1 KB = 50176 -> 4 blocks; 56 KB + 1 KB = 58368 -> 4 blocks (233472 exactly).
  EXPECT_EQ(TheoreticalOccupancy(H100Limits(), 128, 32, 48 * 1024).blocks_per_sm, 4);
  EXPECT_EQ(TheoreticalOccupancy(H100Limits(), 128, 32, 56 * 1024).blocks_per_sm, 4);
  // 1 byte rounds up to 128 (+ 1 KB): 1152 a block, no limit below 32 blocks.
  EXPECT_EQ(TheoreticalOccupancy(H100Limits(), 32, 16, 1).limiter, "blocks");
}

TEST(OccupancyTest, BlocksLimitAndInvalidLaunches) {
  const Occupancy o = TheoreticalOccupancy(H100Limits(), 32, 16, 0);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.warps_per_sm, 32);
  EXPECT_DOUBLE_EQ(o.percent, 50);
  EXPECT_EQ(o.limiter, "blocks");
  EXPECT_FALSE(TheoreticalOccupancy(H100Limits(), 2048, 32, 0).valid);
  EXPECT_FALSE(TheoreticalOccupancy(H100Limits(), 256, 256, 0).valid);
  EXPECT_FALSE(TheoreticalOccupancy(H100Limits(), 0, 32, 0).valid);
  EXPECT_FALSE(TheoreticalOccupancy(H100Limits(), 256, 32, 300 * 1024).valid);
  // 1024 threads x 255 registers exceed the 64K registers of a block.
  EXPECT_FALSE(TheoreticalOccupancy(H100Limits(), 1024, 255, 0).valid);
}

TEST(OccupancyTest, ZeroFieldsFallBackToH100) {
  const model::DeviceInfo empty;
  const Occupancy o = TheoreticalOccupancy(empty, 256, 128, 0);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.limiter, "registers");
  EXPECT_EQ(TheoreticalOccupancy(empty, 256, 32, 100 * 1024).blocks_per_sm, 2);
}

// --- Missing metrics -------------------------------------------------------------------

TEST(MissingMetricsTest, NoCrashAndUnknownVerdict) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  // No device metrics, no peaks anywhere.
  AddSet(p, "empty", {1, 1, 1}, {1, 1, 1}, {});
  AddSet(p, "duration_only", {2, 1, 1}, {1, 1, 1}, {{m::kDuration, 100}});
  AddSet(p, "flops_no_ceiling", {3, 1, 1}, {1, 1, 1},
         {{m::kDuration, 100}, {m::kFfma, 50}, {m::kDramBytes, 0}});
  AddSet(p, "zero_duration", {4, 1, 1}, {1, 1, 1}, {{m::kDuration, 0}, {m::kFfma, 50}});
  AddSet(p, "nan", {5, 1, 1}, {1, 1, 1}, {{m::kDuration, NAN}, {m::kFfma, INFINITY}});
  // A damaged file's duration past 2^64 ns: the time saturates (the fuzzer's find).
  AddSet(p, "huge", {6, 1, 1}, {1, 1, 1}, {{m::kDuration, 1e300}});
  // A region (no grid).
  AddSet(p, "region", {0, 0, 0}, {0, 0, 0}, {{m::kDuration, 100}}, {},
         model::CounterStrategy::kUserRange);
  const std::vector<KernelCounters> all = AnalyzeCounters(p);
  ASSERT_EQ(all.size(), 7u);
  for (const KernelCounters& k : all) {
    EXPECT_EQ(k.verdict.bound, Bound::kUnknown) << k.name;
    EXPECT_FALSE(Reason(k).empty()) << k.name;
    EXPECT_FALSE(k.pct_compute.has_value()) << k.name;
    EXPECT_EQ(k.pct_fp32, 0) << k.name;
  }
  const KernelCounters* f = Find(all, "flops_no_ceiling");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->fp32_flops, 100);
  EXPECT_DOUBLE_EQ(f->fp32_flops_per_s, 1e9);
  EXPECT_TRUE(std::isinf(f->ai_dram));
  EXPECT_EQ(f->ridge_dram, 0);
  const KernelCounters* z = Find(all, "zero_duration");
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(z->fp32_flops_per_s, 0);
  const KernelCounters* r = Find(all, "region");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->region);
  EXPECT_FALSE(r->verdict.small_grid);
  EXPECT_EQ(Find(all, "nan")->duration_ns, 0);
  EXPECT_EQ(Find(all, "huge")->total_time_ns, std::numeric_limits<uint64_t>::max());
  const Ceilings c = ComputeCeilings(p, 0);
  EXPECT_FALSE(c.valid);
  // The empty profile.
  EXPECT_TRUE(AnalyzeCounters(model::Profile()).empty());
  EXPECT_TRUE(ComputeAllCeilings(model::Profile()).empty());
}

// A region measured as a whole over 3 instances (3 passes, kernel records paused in
// them) and traced in 2 more: its kernels' time per traced instance and the FLOP/s
// while they run join the reason.
// A record made from its launch (rotate held CUPTI's off) knows no registers: the
// launch configuration comes from a CUPTI record of the signature, or stays unknown.
TEST(AnalyzeCountersTest, LaunchConfigIgnoresRecordsMadeFromLaunches) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  auto made = [&](const std::string& name, uint64_t t) {
    model::KernelRecord& k = b.Kernel(name, t, t + 1000);
    k.flags = model::kKernelCountersMeasured | model::kKernelFromLaunch | model::kKernelTimePlaced;
    k.registers_per_thread = 0;
  };
  made("gemm", 1000);  // drained before CUPTI's records: the group's first row
  b.Kernel("gemm", 5000, 6000).registers_per_thread = 96;
  made("relu", 9000);  // only made records
  AddSet(p, "gemm", {128, 1, 1}, {256, 1, 1}, {{m::kDuration, 1000}});
  AddSet(p, "relu", {128, 1, 1}, {256, 1, 1}, {{m::kDuration, 1000}});
  const std::vector<KernelCounters> all = AnalyzeCounters(p);
  const KernelCounters* gemm = Find(all, "gemm");
  ASSERT_NE(gemm, nullptr);
  ASSERT_TRUE(gemm->launch_config.has_value());
  EXPECT_EQ(gemm->launch_config->registers_per_thread, 96u);
  EXPECT_EQ(gemm->launches, 2u);
  const KernelCounters* relu = Find(all, "relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_FALSE(relu->launch_config.has_value());
}

TEST(AnalyzeCountersTest, RegionKernelTimeFromTracedInstances) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  AddDeviceMetrics(p, H200Peaks());
  p.run.notes.counters_region_kernels = "paused";
  uint32_t corr = 1000;
  for (int i = 0; i < 5; ++i) {
    const uint64_t t0 = 100000 * (i + 1);
    b.Range("step", t0, t0 + 90000, 0);
    b.Range("forward", t0 + 1000, t0 + 60000, 1);
    if (i < 3) continue;  // measured instances: no kernel records
    for (int k = 0; k < 2; ++k) {
      b.Api("cudaLaunchKernel", t0 + 2000 + k * 100, t0 + 2050 + k * 100, ++corr);
      b.Kernel("gemm", t0 + 5000 + k * 10000, t0 + 5000 + k * 10000 + 5000, 7, corr);
    }
  }
  // 1e9 FP32 FLOPs in a span of 50 us: 20 TFLOP/s over the span; its kernels run
  // 10 us per instance: 100 TFLOP/s while they run.
  model::CounterSet& s =
      AddSet(p, "step/forward", {0, 0, 0}, {0, 0, 0}, {{m::kDuration, 50000}, {m::kFfma, 5e8}}, {},
             model::CounterStrategy::kUserRange);
  s.passes = 3;
  const std::vector<KernelCounters> all = AnalyzeCounters(p);
  const KernelCounters* r = Find(all, "step/forward");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->region);
  ASSERT_TRUE(r->region_kernels.has_value());
  EXPECT_DOUBLE_EQ(r->region_kernels->ns_per_instance, 10000);
  EXPECT_EQ(r->region_kernels->traced_instances, 2u);
  EXPECT_DOUBLE_EQ(r->region_kernels->flops_per_s, 1e14);
  // FP32 at 1e14 FLOP/s of the 5.930496e13 roof.
  EXPECT_NEAR(r->region_kernels->dominant_pct_of_peak.value(), 100 * 1e14 / kPeakFp32, 1e-9);
  EXPECT_NE(Reason(*r).find("its kernels run 10 us of GPU time per instance (2 traced)"),
            std::string::npos)
      << Reason(*r);
  EXPECT_NE(Reason(*r).find("while they run (FP32 at"), std::string::npos) << Reason(*r);
  // Without paused records every instance counts: no kernels in 3 of them halves nothing
  // here, the time is spread over all 5.
  p.run.notes.counters_region_kernels.clear();
  EXPECT_DOUBLE_EQ(Find(AnalyzeCounters(p), "step/forward")->region_kernels->ns_per_instance, 4000);
}

// --- Notes ------------------------------------------------------------------------------

TEST(CounterNotesTest, ExtraKeysAndMissingCeilings) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  p.run.notes.counters_status = "not permitted: ERR_NVGPUCTRPERM (see docs/counters.md)";
  p.run.notes.other["counters.skipped"] = "3 kernels";  // a newer version's note
  p.run.notes.world_size = 8;
  std::vector<std::string> notes = CounterNotes(p);
  EXPECT_THAT(notes, ::testing::ElementsAre(
                         "skipped: 3 kernels",
                         "status: not permitted: ERR_NVGPUCTRPERM (see docs/counters.md)"));
  AddSet(p, "k", {1, 1, 1}, {1, 1, 1}, {{m::kDuration, 1}});
  notes = CounterNotes(p);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_THAT(notes[2], HasSubstr("GPU 0: no peak or clock metrics"));
}

}  // namespace
}  // namespace cuscope::analysis
