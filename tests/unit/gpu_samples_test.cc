// GPU metrics sampling (lib/analysis/gpu_samples.h): which samples belong to which
// kernel, and the rates they make.
#include "lib/analysis/gpu_samples.h"

#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/analysis/sampled_verdict.h"
#include "lib/model/metrics.h"
#include "tests/unit/builders.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;
using cuscope::testing::ProfileBuilder;

// Samples every 10 us of [from, to): sm cycles elapsed 19,800 (1.98 GHz), active
// `active` cycles, DRAM `pct`%, `bytes` read and as many written, tensor `tensor`%.
void Sample(model::Profile& p, uint64_t from, uint64_t to, double active, double pct, double bytes,
            double tensor) {
  for (uint64_t t = from; t + 10000 <= to; t += 10000) {
    model::GpuSample s;
    s.start_ns = t;
    s.end_ns = t + 10000;
    s.values = {19800, active, tensor, pct, 1000, bytes, bytes};
    p.samples.push_back(s);
  }
}

void Configure(model::Profile& p) {
  model::GpuSampleConfig c;
  c.interval_ns = 10000;
  for (const char* name :
       {m::kSampledSmCyclesElapsed, m::kSampledSmCyclesActive, m::kSampledTensorPct,
        m::kSampledDramPct, m::kSampledInstExecuted, m::kSampledDramRead, m::kSampledDramWrite}) {
    c.metrics.push_back(p.strings.Intern(name));
  }
  p.sample_configs.push_back(c);
}

const SampledKernel* Find(const GpuSampleAnalysis& a, const std::string& name) {
  for (const SampledKernel& k : a.kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

TEST(GpuSamplesTest, SamplesInsideOneKernelAreItsAndMakeRates) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  Configure(p);
  b.Kernel("stream", 1000000, 1100000);  // 100 us: samples 1.00-1.10 ms are inside
  b.Kernel("gemm", 1200000, 1250000);    // 50 us
  Sample(p, 1000000, 1100000, 19000, 90, 40e6, 0);
  Sample(p, 1100000, 1200000, 0, 0, 0, 0);  // the gap
  Sample(p, 1200000, 1250000, 19800, 10, 1e6, 80);
  const GpuSampleAnalysis a = AnalyzeGpuSamples(p);
  ASSERT_EQ(a.devices.size(), 1u);
  EXPECT_EQ(a.devices[0].all.samples, 25u);
  EXPECT_EQ(a.devices[0].in_kernels.samples, 15u);
  EXPECT_EQ(a.devices[0].attributed, 15u);
  ASSERT_EQ(a.kernels.size(), 2u);
  const SampledKernel* s = Find(a, "stream");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->rates.samples, 10u);
  EXPECT_DOUBLE_EQ(s->coverage_pct(), 100);
  EXPECT_NEAR(*s->rates.sm_active_pct, 100.0 * 19000 / 19800, 1e-9);
  EXPECT_NEAR(*s->rates.sm_clock_hz, 1.98e9, 1);
  EXPECT_NEAR(*s->rates.dram_pct, 90, 1e-9);
  EXPECT_NEAR(*s->rates.dram_bytes_per_s, 80e6 / 10e-6, 1);  // 8 TB/s
  EXPECT_NEAR(*s->rates.tensor_pct, 0, 1e-9);
  // 1000 instructions a sample over 132 SMs x 4 x 19,800 cycles.
  EXPECT_NEAR(*s->rates.issue_pct, 100.0 * 1000 / (132 * 4 * 19800.0), 1e-9);
  EXPECT_FALSE(s->rates.l2_bytes_per_s.has_value());  // not sampled
  const SampledKernel* g = Find(a, "gemm");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->rates.samples, 5u);
  EXPECT_NEAR(*g->rates.tensor_pct, 80, 1e-9);
  EXPECT_EQ(a.kernels[0].name, "stream");  // by time
}

TEST(GpuSamplesTest, EdgesConcurrencyAndShortKernelsAreLeftOut) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  Configure(p);
  b.Kernel("edge", 1005000, 1035000);            // 30 us, starts mid-sample: 2 whole samples
  b.Kernel("short", 1100000, 1104000);           // 4 us: no whole sample
  b.Kernel("a", 1200000, 1300000, 7);            // 100 us on stream 7
  b.Kernel("b", 1250000, 1350000, 8);            // overlaps a for 50 us
  Sample(p, 1000000, 1400000, 100, 50, 1e5, 5);  // 40 samples
  const GpuSampleAnalysis a = AnalyzeGpuSamples(p);
  EXPECT_EQ(Find(a, "edge")->rates.samples, 2u);
  EXPECT_NEAR(Find(a, "edge")->coverage_pct(), 100.0 * 20 / 30, 1e-9);
  EXPECT_EQ(Find(a, "short")->rates.samples, 0u);
  EXPECT_FALSE(Find(a, "short")->rates.dram_pct.has_value());
  EXPECT_EQ(Find(a, "a")->rates.samples, 5u);  // 1.20-1.25 ms alone
  EXPECT_EQ(Find(a, "b")->rates.samples, 5u);  // 1.30-1.35 ms alone
  EXPECT_EQ(a.devices[0].attributed, 12u);
  // In kernels: edge's 2, a/b's 15 (1.20-1.35 ms, overlap included).
  EXPECT_EQ(a.devices[0].in_kernels.samples, 17u);
}

// Back-to-back kernels: a sample across the boundary is in kernel time (the device's
// "inside kernels" rates) but belongs to neither kernel.
TEST(GpuSamplesTest, TouchingKernelsAreOneStretchOfKernelTime) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  Configure(p);
  b.Kernel("a", 1000000, 1025000);
  b.Kernel("b", 1025000, 1050000);
  Sample(p, 1000000, 1050000, 100, 50, 1e5, 5);  // 5 samples; the third spans 1.025 ms
  const GpuSampleAnalysis a = AnalyzeGpuSamples(p);
  EXPECT_EQ(a.devices[0].in_kernels.samples, 5u);
  EXPECT_EQ(a.devices[0].attributed, 4u);
  EXPECT_EQ(Find(a, "a")->rates.samples, 2u);
  EXPECT_EQ(Find(a, "b")->rates.samples, 2u);
}

TEST(GpuSamplesTest, DamagedValuesAndMissingConfig) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  b.Kernel("k", 1000000, 1100000);
  Sample(p, 1000000, 1100000, 100, 50, 1e5, 5);
  EXPECT_TRUE(AnalyzeGpuSamples(p).empty());  // no configuration: nothing to name them by
  Configure(p);
  p.samples[0].values[3] = NAN;   // DRAM % of one sample not finite: left out of its mean
  p.samples[1].values.resize(2);  // the wrong count of values: the sample is skipped
  p.samples[2].end_ns = p.samples[2].start_ns;  // no time
  const GpuSampleAnalysis a = AnalyzeGpuSamples(p);
  const SampledKernel* k = Find(a, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->rates.samples, 8u);
  EXPECT_NEAR(*k->rates.dram_pct, 50, 1e-9);
  EXPECT_NEAR(*k->rates.sm_active_pct, 100.0 * 100 / 19800, 1e-9);
}

TEST(GpuSamplesTest, RatesAreAveragedCountsSummed) {
  EXPECT_TRUE(m::IsSampledRate(m::kSampledDramPct));
  EXPECT_TRUE(m::IsSampledRate("sm__cycles_elapsed.avg.per_second"));
  EXPECT_FALSE(m::IsSampledRate(m::kSampledDramRead));
  EXPECT_FALSE(m::IsSampledRate(m::kSampledSmCyclesActive));
  ProfileBuilder b;
  model::Profile& p = b.profile();
  Configure(p);
  b.Kernel("k", 1000000, 1040000);
  Sample(p, 1000000, 1020000, 100, 20, 1e5, 0);
  Sample(p, 1020000, 1040000, 100, 60, 3e5, 0);
  const GpuSampleAnalysis a = AnalyzeGpuSamples(p);
  const SampledKernel* k = Find(a, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_NEAR(*k->rates.dram_pct, 40, 1e-9);                               // mean
  EXPECT_NEAR(*k->rates.dram_bytes_per_s, 2 * (2e5 + 6e5) / 40e-6, 1e-3);  // sum / time
}

TEST(GpuSamplesTest, OneSampleRatesFollowTheSameRules) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  Configure(p);
  const SampleLayout l = SampleLayoutOf(p, p.sample_configs[0]);
  ASSERT_EQ(l.names.size(), 7u);
  EXPECT_EQ(l.sm_count, 132);
  EXPECT_EQ(l.sm_elapsed, 0);
  EXPECT_EQ(l.dram_pct, 3);
  EXPECT_EQ(l.l2, -1);  // not sampled
  model::GpuSample s;
  s.start_ns = 1000000;
  s.end_ns = 1020000;  // 20 us
  s.values = {39600, 19800, 25, 70, 2000, 3e5, 1e5};
  DerivedRates r = SampleRates(s, l);
  EXPECT_NEAR(*r.sm_clock_hz, 39600 / 20e-6, 1);  // 1.98 GHz
  EXPECT_NEAR(*r.sm_active_pct, 50, 1e-9);
  EXPECT_NEAR(*r.issue_pct, 100.0 * 2000 / (132 * 4 * 39600.0), 1e-9);
  EXPECT_NEAR(*r.tensor_pct, 25, 1e-9);  // rates as they are
  EXPECT_NEAR(*r.dram_pct, 70, 1e-9);
  EXPECT_NEAR(*r.dram_bytes_per_s, 4e5 / 20e-6, 1e-3);
  EXPECT_FALSE(r.l2_bytes_per_s.has_value());
  // The analysis of that one sample inside a kernel says the same.
  b.Kernel("k", 1000000, 1020000);
  p.samples.push_back(s);
  const GpuSampleAnalysis a = AnalyzeGpuSamples(p);
  const SampledKernel* k = Find(a, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_DOUBLE_EQ(*k->rates.sm_active_pct, *r.sm_active_pct);
  EXPECT_DOUBLE_EQ(*k->rates.dram_bytes_per_s, *r.dram_bytes_per_s);
  // A value not finite: what needs it is unset, the rest stays.
  s.values[1] = NAN;
  s.values[5] = INFINITY;
  r = SampleRates(s, l);
  EXPECT_FALSE(r.sm_active_pct.has_value());
  EXPECT_NEAR(*r.sm_clock_hz, 1.98e9, 1);
  EXPECT_NEAR(*r.dram_bytes_per_s, 1e5 / 20e-6, 1e-3);  // write only
  // No time, or values that do not match the layout: nothing.
  s.end_ns = s.start_ns;
  EXPECT_FALSE(SampleRates(s, l).sm_clock_hz.has_value());
  s.end_ns = s.start_ns + 10000;
  s.values.resize(3);
  EXPECT_FALSE(SampleRates(s, l).tensor_pct.has_value());
}

// The sampled verdict (lib/analysis/sampled_verdict.h): the class from the busiest
// sampled SM part and memory level, only with enough samples.
TEST(GpuSamplesTest, KernelsWithSamplesGetASampledVerdict) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  Configure(p);
  b.Kernel("stream", 1000000, 1100000).graph_id = 1;         // 10 samples, DRAM 90%
  b.Kernel("gemm", 1200000, 1250000).graph_id = 1;           // 5 samples, tensor 80%, DRAM 10%
  b.Kernel("chain", 1300000, 1350000).grid = {1, 1, 1};      // 5 samples, nothing busy
  b.Kernel("wide", 1500000, 1550000).grid = {100000, 1, 1};  // as chain, 100,000 blocks
  b.Kernel("blip", 1400000, 1420000);                        // 2 samples: too few
  Sample(p, 1000000, 1100000, 19000, 90, 40e6, 0);
  Sample(p, 1200000, 1250000, 19800, 10, 1e6, 80);
  Sample(p, 1300000, 1350000, 19800, 3, 1e4, 0);
  Sample(p, 1400000, 1420000, 19800, 95, 1e4, 0);
  Sample(p, 1500000, 1550000, 19800, 3, 1e4, 0);
  const GpuSampleAnalysis a = AnalyzeGpuSamples(p);
  const SampledKernel* stream = Find(a, "stream");
  ASSERT_TRUE(stream && stream->verdict);
  EXPECT_EQ(stream->verdict->sol_class, SolClass::kMemory);
  EXPECT_EQ(stream->verdict->bound, Bound::kDram);
  EXPECT_TRUE(stream->verdict->high_throughput);
  EXPECT_TRUE(stream->verdict->sol_from_parts);
  EXPECT_NEAR(*stream->verdict->memory_pct, 90, 1e-9);
  const SampledKernel* gemm = Find(a, "gemm");
  ASSERT_TRUE(gemm && gemm->verdict);
  EXPECT_EQ(gemm->verdict->sol_class, SolClass::kCompute);
  EXPECT_EQ(gemm->verdict->bound, Bound::kCompute);
  ASSERT_TRUE(gemm->verdict->limiter);
  EXPECT_EQ(gemm->verdict->limiter->unit, Unit::kTensorPipe);
  const SampledKernel* chain = Find(a, "chain");
  ASSERT_TRUE(chain && chain->verdict);
  EXPECT_EQ(chain->verdict->sol_class, SolClass::kLatency);
  // One block against a wave of 132 SMs x 8 blocks (256 threads, 32 registers): a small
  // grid; the same work over 100,000 blocks is latency-bound without it.
  EXPECT_TRUE(chain->verdict->small_grid);
  EXPECT_EQ(chain->verdict->grid_blocks, 1u);
  EXPECT_EQ(chain->verdict->wave_blocks, 132u * 8);
  const SampledKernel* wide = Find(a, "wide");
  ASSERT_TRUE(wide && wide->verdict);
  EXPECT_EQ(wide->verdict->sol_class, SolClass::kLatency);
  EXPECT_FALSE(wide->verdict->small_grid);
  const SampledKernel* blip = Find(a, "blip");
  ASSERT_NE(blip, nullptr);
  EXPECT_EQ(blip->rates.samples, 2u);
  EXPECT_FALSE(blip->verdict.has_value());
}

TEST(GpuSamplesTest, AKernelOfSeveralShapesHasNoGridInItsVerdict) {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  Configure(p);
  b.Kernel("walk", 1000000, 1050000).grid = {1, 1, 1};
  b.Kernel("walk", 1100000, 1150000).grid = {2, 1, 1};
  Sample(p, 1000000, 1050000, 19800, 3, 1e4, 0);
  Sample(p, 1100000, 1150000, 19800, 3, 1e4, 0);
  const GpuSampleAnalysis a = AnalyzeGpuSamples(p);
  const SampledKernel* walk = Find(a, "walk");
  ASSERT_TRUE(walk && walk->verdict);
  EXPECT_EQ(walk->verdict->sol_class, SolClass::kLatency);
  EXPECT_EQ(walk->verdict->grid_blocks, 0u);
  EXPECT_FALSE(walk->verdict->small_grid);
}

TEST(GpuSamplesTest, NoSampledVerdictWithoutBothSides) {
  SampledParts memory_only;
  memory_only.samples = 10;
  memory_only.dram_pct = 90;
  EXPECT_FALSE(SampledVerdict(memory_only, nullptr).has_value());
  SampledParts both = memory_only;
  both.issue_pct = 85;
  both.l2_bytes_per_s = 5e12;
  Ceilings c;
  c.peak_l2_bytes_per_s = 1e13;  // L2 at 50%
  const std::optional<Verdict> v = SampledVerdict(both, &c);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->sol_class, SolClass::kBalanced);  // 85 and 90: within 10 points
  ASSERT_EQ(v->units.size(), 3u);                // issue, DRAM, L2
  both.samples = kMinSampledVerdictSamples - 1;
  EXPECT_FALSE(SampledVerdict(both, &c).has_value());
}

}  // namespace
}  // namespace cuscope::analysis
