// Report benchmarks: Chrome trace export throughput (events/s), Summarize on 1M
// kernels, SummarizeRegions on 100k ranges and 1M kernels, BuildReport (every
// analysis a report needs, once) and each writer (text, CSV, JSON) from that data.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/summary.h"
#include "lib/model/profile.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/csv.h"
#include "lib/report/json.h"
#include "lib/report/report_data.h"
#include "lib/report/text.h"

namespace cuscope {
namespace {

struct Shape {
  size_t kernels = 0;  // each launched by one cudaLaunchKernel
  size_t memcpys = 0;  // each launched by one cudaMemcpyAsync
  size_t memsets = 0;  // each launched by one cudaMemsetAsync
  size_t ranges = 0;   // "step" ranges, each with a nested "forward" range
  uint32_t threads = 4;
};

// A deterministic synthetic profile: launches round-robin over `threads` host
// threads and 4 streams, 64 kernel names with realistic template-heavy lengths,
// every 20th kernel measured by counters.
std::unique_ptr<model::Profile> MakeProfile(const Shape& shape) {
  auto p = std::make_unique<model::Profile>();
  p->run.command_line = "python train.py --model llama --batch 32";
  p->run.pid = 4242;
  p->run.start_ns = 1'000'000;
  p->run.start_unix_ns = 1'700'000'000'000'000'000;
  p->run.rank = 0;
  model::DeviceInfo d;
  d.id = 0;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  d.warp_size = 32;
  d.compute_major = 9;
  p->devices.push_back(d);

  std::vector<model::StringId> names, mangled;
  for (int i = 0; i < 64; ++i) {
    names.push_back(
        p->strings.Intern("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_" +
                          std::to_string(i) + "x64_64x3_tn_align8>(Params)"));
    mangled.push_back(p->strings.Intern("_ZN7cutlass7Kernel2I" + std::to_string(i) + "EEvT_"));
  }
  const model::StringId launch = p->strings.Intern("cudaLaunchKernel");
  const model::StringId copy = p->strings.Intern("cudaMemcpyAsync");
  const model::StringId set = p->strings.Intern("cudaMemsetAsync");
  const model::StringId step = p->strings.Intern("step");
  const model::StringId forward = p->strings.Intern("forward");

  const size_t launches = shape.kernels + shape.memcpys + shape.memsets;
  const uint64_t t0 = p->run.start_ns + 1000;
  const uint64_t launch_period = 2000;  // ns between launches on one thread
  p->kernels.reserve(shape.kernels);
  p->api_calls.reserve(launches);
  uint32_t correlation = 1;
  uint64_t gpu_time = t0 + 5000;
  for (size_t i = 0; i < launches; ++i) {
    const uint32_t thread = 1000 + static_cast<uint32_t>(i % shape.threads);
    const uint64_t api_start = t0 + (i / shape.threads) * launch_period + (i % shape.threads) * 7;
    model::ApiRecord a;
    a.start_ns = api_start;
    a.end_ns = api_start + 3000 / (1 + i % 5);
    a.process_id = 4242;
    a.thread_id = thread;
    a.correlation_id = correlation;
    a.callback_id = 211;
    const uint32_t stream = 7 + static_cast<uint32_t>(i % 4);
    const uint64_t duration = 800 + (i * 7919) % 4000;
    if (i < shape.kernels) {
      a.name = launch;
      model::KernelRecord k;
      k.start_ns = gpu_time;
      k.end_ns = gpu_time + duration;
      k.stream_id = stream;
      k.context_id = 1;
      k.correlation_id = correlation;
      k.name = names[i % names.size()];
      k.mangled_name = mangled[i % mangled.size()];
      k.grid = {static_cast<uint32_t>(64 + i % 512), 1, 1};
      k.block = {256, 1, 1};
      k.registers_per_thread = 64;
      k.static_shared_bytes = 16384;
      k.dynamic_shared_bytes = 32768;
      k.flags = i % 20 == 0 ? model::kKernelCountersMeasured : model::kKernelNone;
      p->kernels.push_back(k);
    } else if (i < shape.kernels + shape.memcpys) {
      a.name = copy;
      model::MemcpyRecord m;
      m.start_ns = gpu_time;
      m.end_ns = gpu_time + duration;
      m.stream_id = stream;
      m.context_id = 1;
      m.correlation_id = correlation;
      m.bytes = 1 << 20;
      m.kind = i % 2 ? model::MemcpyKind::kHtoD : model::MemcpyKind::kDtoH;
      m.src_kind = i % 2 ? model::MemoryKind::kPinned : model::MemoryKind::kDevice;
      m.dst_kind = i % 2 ? model::MemoryKind::kDevice : model::MemoryKind::kPageable;
      p->memcpys.push_back(m);
    } else {
      a.name = set;
      model::MemsetRecord m;
      m.start_ns = gpu_time;
      m.end_ns = gpu_time + duration / 4;
      m.stream_id = stream;
      m.correlation_id = correlation;
      m.bytes = 1 << 16;
      m.memory_kind = model::MemoryKind::kDevice;
      p->memsets.push_back(m);
    }
    p->api_calls.push_back(a);
    gpu_time += duration / 2;
    ++correlation;
  }

  // Ranges: `ranges` steps spread evenly over the launch timeline, round-robin over
  // threads, each with a forward range covering its first half.
  if (shape.ranges > 0) {
    const uint64_t span = (launches / shape.threads + 1) * launch_period;
    const uint64_t per_thread = (shape.ranges + shape.threads - 1) / shape.threads;
    const uint64_t period = std::max<uint64_t>(span / per_thread, 4);
    for (size_t r = 0; r < shape.ranges; ++r) {
      const uint32_t thread = 1000 + static_cast<uint32_t>(r % shape.threads);
      const uint64_t start = t0 + (r / shape.threads) * period;
      model::RangeRecord s;
      s.start_ns = start;
      s.end_ns = start + period - 1;
      s.name = step;
      s.process_id = 4242;
      s.thread_id = thread;
      s.id = 2 * r + 1;
      model::RangeRecord f = s;
      f.end_ns = start + period / 2;
      f.name = forward;
      f.depth = 1;
      f.id = 2 * r + 2;
      p->ranges.push_back(s);
      p->ranges.push_back(f);
    }
  }
  p->run.end_ns = gpu_time + 10000;
  return p;
}

const model::Profile& ExportProfile() {
  static const auto* p = MakeProfile({100000, 20000, 5000, 10000, 4}).release();
  return *p;
}

const model::Profile& MillionKernelProfile() {
  static const auto* p = MakeProfile({1000000, 0, 0, 50000, 8}).release();
  return *p;
}

void BM_ChromeTraceExport(benchmark::State& state) {
  const model::Profile& p = ExportProfile();
  const std::string path = "/tmp/cuscope_report_bench_trace.json";
  uint64_t events = 0;
  for (auto _ : state) {
    report::ChromeTraceStats stats;
    absl::Status status = report::WriteChromeTrace(p, path, &stats);
    if (!status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      break;
    }
    events += stats.events;
  }
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f != nullptr) {
    std::fseek(f, 0, SEEK_END);
    state.counters["file_MB"] = static_cast<double>(std::ftell(f)) / 1e6;
    std::fclose(f);
  }
  std::remove(path.c_str());
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.counters["events"] =
      state.iterations() > 0 ? static_cast<double>(events / state.iterations()) : 0;
}
BENCHMARK(BM_ChromeTraceExport)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Summarize1MKernels(benchmark::State& state) {
  const model::Profile& p = MillionKernelProfile();
  for (auto _ : state) {
    analysis::Summary s = analysis::Summarize(p);
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * p.kernels.size()));
}
BENCHMARK(BM_Summarize1MKernels)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SummarizeRegions100kRanges1MKernels(benchmark::State& state) {
  const model::Profile& p = MillionKernelProfile();
  for (auto _ : state) {
    std::vector<analysis::RegionSummaryRow> rows = analysis::SummarizeRegions(p);
    benchmark::DoNotOptimize(rows);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * p.kernels.size()));
  state.counters["ranges"] = static_cast<double>(p.ranges.size());
}
BENCHMARK(BM_SummarizeRegions100kRanges1MKernels)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BuildReport1MKernels(benchmark::State& state) {
  const model::Profile& p = MillionKernelProfile();
  for (auto _ : state) {
    report::ReportData data = report::BuildReport(p);
    benchmark::DoNotOptimize(data);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * p.kernels.size()));
}
BENCHMARK(BM_BuildReport1MKernels)->Unit(benchmark::kMillisecond)->UseRealTime();

// One writer (0 text, 1 CSV, 2 JSON) of every row of the data built once.
void BM_WriteReport1MKernels(benchmark::State& state) {
  static const report::ReportData* data =
      new report::ReportData(report::BuildReport(MillionKernelProfile()));
  report::ReportOptions options;
  options.top = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    std::ostringstream out;
    switch (state.range(0)) {
      case 0:
        report::WriteText(*data, options, out);
        break;
      case 1:
        report::WriteCsv(*data, options, out);
        break;
      default:
        report::WriteJson(*data, options, out);
        break;
    }
    bytes += out.str().size();
    benchmark::DoNotOptimize(out);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetLabel(state.range(0) == 0 ? "text" : state.range(0) == 1 ? "csv" : "json");
}
BENCHMARK(BM_WriteReport1MKernels)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace cuscope

BENCHMARK_MAIN();
