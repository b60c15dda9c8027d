// GPU metrics sampling (docs/gpu-metrics.md), CPU paths: AnalyzeGpuSamples (every
// sample attributed to the kernel it lies in, rates per kernel) and the whole report
// (BuildReport and the text writer) of a run with 1M samples of 8 metrics over 100k
// back-to-back kernels of 64 names (a 10 s run sampled every 10 us).
#include <memory>
#include <sstream>
#include <string>

#include "benchmark/benchmark.h"
#include "lib/analysis/gpu_samples.h"
#include "lib/model/metrics.h"
#include "lib/model/profile.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"

namespace cuscope {
namespace {

std::unique_ptr<model::Profile> MakeSampled(size_t samples, size_t kernels) {
  auto p = std::make_unique<model::Profile>();
  model::DeviceInfo d;
  d.id = 0;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  p->devices.push_back(d);
  const uint64_t interval = 10000, start = 1'000'000'000;
  const uint64_t span = samples * interval;
  const uint64_t each = span / kernels;
  for (size_t i = 0; i < kernels; ++i) {
    model::KernelRecord k;
    k.name = p->strings.Intern("kernel_" + std::to_string(i % 64));
    k.start_ns = start + i * each;
    k.end_ns = k.start_ns + each - 2000;  // 2 us gaps
    k.correlation_id = static_cast<uint32_t>(i + 1);
    p->kernels.push_back(k);
  }
  model::GpuSampleConfig c;
  c.interval_ns = interval;
  for (const std::string& m : metrics::DefaultSampledMetrics()) {
    c.metrics.push_back(p->strings.Intern(m));
  }
  p->sample_configs.push_back(c);
  p->samples.reserve(samples);
  for (size_t i = 0; i < samples; ++i) {
    model::GpuSample s;
    s.start_ns = start + i * interval;
    s.end_ns = s.start_ns + interval;
    s.values = {19800, 15000 + double(i % 4000), 40, 55, 1000, 3e7, 1e7, 9e7};
    p->samples.push_back(std::move(s));
  }
  return p;
}

void BM_AnalyzeGpuSamples(benchmark::State& state) {
  auto p = MakeSampled(static_cast<size_t>(state.range(0)), 100000);
  for (auto _ : state) {
    analysis::GpuSampleAnalysis a = analysis::AnalyzeGpuSamples(*p);
    benchmark::DoNotOptimize(a);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_AnalyzeGpuSamples)->Arg(1000000)->Unit(benchmark::kMillisecond);

void BM_ReportWithSamples(benchmark::State& state) {
  auto p = MakeSampled(static_cast<size_t>(state.range(0)), 100000);
  for (auto _ : state) {
    report::ReportData data = report::BuildReport(*p);
    std::ostringstream out;
    report::WriteText(data, report::ReportOptions(), out);
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ReportWithSamples)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cuscope

BENCHMARK_MAIN();
