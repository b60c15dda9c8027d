// Trace size and speed at scale: a synthetic profile of 2M small kernels, each
// launched by one cudaLaunchKernel (the issue-13 case: 2M launches made a 1.37 GB
// Chrome JSON), written as Perfetto's .pftrace and as a gzip Chrome trace
// (.json.gz), and as a .pftrace with runs of kernels under 5 us aggregated. Each
// reports the file's size (MB counter) and the time to write it. Peak memory: run
// one at a time under /usr/bin/time -v (docs/performance.md).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "lib/model/profile.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/perfetto_trace.h"
#include "lib/report/trace_filter.h"

namespace cuscope {
namespace {

constexpr size_t kLaunches = 2'000'000;

// 2M launches on 4 streams from 2 host threads, 16 kernel names, kernels 1.5 to
// 3.5 us long and 2 us apart on each stream, every 1000th launch inside a "step"
// range.
const model::Profile& TwoMillionLaunches() {
  static const model::Profile* profile = [] {
    auto* p = new model::Profile();
    p->run.command_line = "python train.py";
    p->run.pid = 4242;
    p->run.start_ns = 1'000'000;
    p->run.start_unix_ns = 1'700'000'000'000'000'000;
    model::DeviceInfo d;
    d.name = "NVIDIA H200";
    d.sm_count = 132;
    d.warp_size = 32;
    d.max_warps_per_sm = 64;
    p->devices.push_back(d);
    std::vector<model::StringId> names;
    for (int i = 0; i < 16; ++i) {
      names.push_back(
          p->strings.Intern("void at::native::vectorized_elementwise_kernel<4, "
                            "at::native::AddFunctor<float>, std::array<char*, " +
                            std::to_string(i) + ">>(int, Op, Array)"));
    }
    const model::StringId launch = p->strings.Intern("cudaLaunchKernel");
    p->kernels.reserve(kLaunches);
    p->api_calls.reserve(kLaunches);
    uint64_t gpu[4] = {};
    for (size_t i = 0; i < kLaunches; ++i) {
      const uint64_t t = p->run.start_ns + 1000 + i * 1000;
      model::ApiRecord a;
      a.start_ns = t;
      a.end_ns = t + 600;
      a.process_id = 4242;
      a.thread_id = 100 + static_cast<uint32_t>(i % 2);
      a.correlation_id = static_cast<uint32_t>(i + 1);
      a.callback_id = 211;
      a.name = launch;
      p->api_calls.push_back(a);
      model::KernelRecord k;
      const uint32_t s = static_cast<uint32_t>(i % 4);
      k.start_ns = std::max(t + 3000, gpu[s] + 500);
      k.end_ns = k.start_ns + 1500 + (i * 7919) % 2000;
      gpu[s] = k.end_ns;
      k.stream_id = 7 + s;
      k.context_id = 1;
      k.correlation_id = a.correlation_id;
      k.name = names[i % names.size()];
      k.grid = {1024, 1, 1};
      k.block = {256, 1, 1};
      k.registers_per_thread = 32;
      p->kernels.push_back(k);
    }
    return p;
  }();
  return *profile;
}

std::string OutPath(const char* suffix) {
  return "/tmp/cuscope_trace_bench_" + std::to_string(getpid()) + suffix;
}

double FileMB(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) / 1e6 : 0;
}

void Write(benchmark::State& state, const char* suffix, bool perfetto, uint64_t aggregate_ns) {
  const model::Profile& p = TwoMillionLaunches();
  report::TraceOptions options;
  options.aggregate_below_ns = aggregate_ns;
  absl::StatusOr<report::TraceFilter> filter = report::TraceFilter::Create(p, options);
  const std::string path = OutPath(suffix);
  for (auto _ : state) {
    const report::TraceView view(p, {}, aggregate_ns > 0 ? &*filter : nullptr);
    const absl::Status st =
        perfetto ? report::WritePerfettoTrace(view, path) : report::WriteChromeTrace(view, path);
    if (!st.ok()) state.SkipWithError(std::string(st.message()).c_str());
  }
  state.counters["MB"] = FileMB(path);
  state.counters["launches"] = static_cast<double>(kLaunches);
  std::remove(path.c_str());
}

void BM_Pftrace2MLaunches(benchmark::State& state) { Write(state, ".pftrace", true, 0); }
void BM_JsonGz2MLaunches(benchmark::State& state) { Write(state, ".json.gz", false, 0); }
void BM_Json2MLaunches(benchmark::State& state) { Write(state, ".json", false, 0); }
void BM_PftraceAggregated2MLaunches(benchmark::State& state) {
  Write(state, ".pftrace", true, 5000);
}

BENCHMARK(BM_Pftrace2MLaunches)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_JsonGz2MLaunches)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_Json2MLaunches)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();
BENCHMARK(BM_PftraceAggregated2MLaunches)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace
}  // namespace cuscope

BENCHMARK_MAIN();
