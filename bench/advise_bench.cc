// Advisor benchmarks (docs/performance.md): analysis::Advise on a synthetic
// profile of 2M kernels (each launched by its cudaLaunchKernel, a synchronization
// and a small device-to-host read every 1,000 kernels, a pageable copy and a "step"
// range every 10,000, and counter sets for 64 signatures), then the same from the
// profile file: loaded and advised (`cuscope advise --recompute`), and the stored
// findings alone (`cuscope advise`). The file is kept at $ADVISE_BENCH_PROFILE (default
// /tmp/cuscope-advise-bench.sqlite) for timing the command itself:
//   /usr/bin/time -v build/bin/cuscope advise --recompute /tmp/cuscope-advise-bench.sqlite
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "lib/analysis/advise.h"
#include "lib/model/metrics.h"
#include "lib/model/profile.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"

namespace cuscope {
namespace {

constexpr size_t kKernels = 2'000'000;
constexpr uint64_t kStart = 1'000'000'000;

std::unique_ptr<model::Profile> MakeProfile() {
  auto p = std::make_unique<model::Profile>();
  p->run.start_ns = kStart;
  model::DeviceInfo d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  d.warp_size = 32;
  d.compute_major = 9;
  p->devices.push_back(d);
  std::vector<model::StringId> names;
  for (int i = 0; i < 64; ++i) {
    names.push_back(p->strings.Intern("void gemm_kernel_" + std::to_string(i) + "<float>(Params)"));
  }
  const model::StringId launch = p->strings.Intern("cudaLaunchKernel");
  const model::StringId sync = p->strings.Intern("cudaStreamSynchronize");
  const model::StringId copy = p->strings.Intern("cudaMemcpyAsync");
  const model::StringId step = p->strings.Intern("step");
  p->kernels.reserve(kKernels);
  p->api_calls.reserve(kKernels + kKernels / 500);
  uint64_t t = kStart + 1000;
  uint32_t corr = 1;
  for (size_t i = 0; i < kKernels; ++i) {
    model::ApiRecord a{t, t + 3000, model::ApiDomain::kRuntime, 211, launch, 1, 7, corr, 0};
    p->api_calls.push_back(a);
    model::KernelRecord k;
    k.start_ns = t + 4000;
    k.end_ns = k.start_ns + (i % 7 == 0 ? 2000 : 20000);
    k.stream_id = 7;
    k.correlation_id = corr++;
    k.name = names[i % names.size()];
    k.grid = {1056, 1, 1};
    k.block = {256, 1, 1};
    k.registers_per_thread = 32;
    p->kernels.push_back(k);
    t = k.end_ns + (i % 100 == 0 ? 200'000 : 1000);
    if (i % 1000 == 999) {
      model::MemcpyRecord m;
      m.start_ns = t;
      m.end_ns = t + 2000;
      m.bytes = 4;
      m.kind = model::MemcpyKind::kDtoH;
      m.src_kind = model::MemoryKind::kDevice;
      m.dst_kind = model::MemoryKind::kPageable;
      m.stream_id = 7;
      m.correlation_id = corr;
      p->api_calls.push_back(
          {t - 1000, t + 1000, model::ApiDomain::kRuntime, 41, copy, 1, 7, corr++, 0});
      p->memcpys.push_back(m);
      p->api_calls.push_back(
          {t - 500, t + 2500, model::ApiDomain::kRuntime, 131, sync, 1, 7, corr++, 0});
      t += 50'000;
    }
    if (i % 10000 == 0) {
      p->ranges.push_back({t - 1000, t + 40'000, step, model::kEmptyString,
                           model::RangeSource::kNvtxPushPop, 1, 7, i + 1, 0});
    }
  }
  p->run.end_ns = t + 1000;
  for (size_t s = 0; s < names.size(); ++s) {
    model::CounterSet c;
    c.name = names[s];
    c.grid = {1056, 1, 1};
    c.block = {256, 1, 1};
    c.strategy = model::CounterStrategy::kKernelReplay;
    c.correlation_ids = {static_cast<uint32_t>(s + 1)};
    c.values = {{p->strings.Intern(metrics::kDuration), 20000},
                {p->strings.Intern(metrics::kSharedLdBankConflicts), 8e6},
                {p->strings.Intern(metrics::kSharedLdInst), 1e6}};
    p->counters.push_back(std::move(c));
  }
  return p;
}

const model::Profile& Profile() {
  static const model::Profile* p = MakeProfile().release();
  return *p;
}

std::string Path() {
  const char* env = std::getenv("ADVISE_BENCH_PROFILE");
  return env != nullptr && *env != '\0' ? env : "/tmp/cuscope-advise-bench.sqlite";
}

void ReportRss(benchmark::State& state) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  state.counters["peak_rss_MB"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
}

void BM_Advise2M(benchmark::State& state) {
  const model::Profile& p = Profile();
  size_t findings = 0;
  for (auto _ : state) {
    std::vector<model::Finding> f = analysis::Advise(p, {});
    findings = f.size();
    benchmark::DoNotOptimize(f);
  }
  state.counters["findings"] = static_cast<double>(findings);
  state.counters["kernels"] = static_cast<double>(p.kernels.size());
  ReportRss(state);
}
BENCHMARK(BM_Advise2M)->Unit(benchmark::kMillisecond)->Iterations(3);

// Writes the file once (the profile, then its findings as the session does).
void BM_WriteProfile2M(benchmark::State& state) {
  for (auto _ : state) {
    model::Profile copy = Profile();
    copy.findings = analysis::Advise(copy, {});
    if (absl::Status s = store::SaveProfile(copy, Path()); !s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
    }
  }
}
BENCHMARK(BM_WriteProfile2M)->Unit(benchmark::kMillisecond)->Iterations(1);

// The load alone (lib/store/reader.cc): every record of the file into a Profile.
void BM_Load2M(benchmark::State& state) {
  size_t rows = 0;
  for (auto _ : state) {
    absl::StatusOr<model::Profile> p = store::LoadProfile(Path());
    if (!p.ok()) {
      state.SkipWithError(std::string(p.status().message()).c_str());
      return;
    }
    rows = p->kernels.size() + p->api_calls.size() + p->memcpys.size() + p->ranges.size();
  }
  state.counters["rows_per_s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Load2M)->Unit(benchmark::kMillisecond)->Iterations(1);

// `cuscope advise --recompute`: load every record, then advise.
void BM_LoadAndAdvise2M(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<model::Profile> p = store::LoadProfile(Path());
    if (!p.ok()) {
      state.SkipWithError(std::string(p.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(analysis::Advise(*p, {}));
  }
}
BENCHMARK(BM_LoadAndAdvise2M)->Unit(benchmark::kMillisecond)->Iterations(1);

// `cuscope advise`: the stored findings alone.
void BM_StoredFindings2M(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<model::Profile> p = store::LoadStoredFindings(Path());
    if (!p.ok() || !p->findings) {
      state.SkipWithError("no stored findings");
      return;
    }
    benchmark::DoNotOptimize(p->findings->size());
  }
}
BENCHMARK(BM_StoredFindings2M)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace cuscope

BENCHMARK_MAIN();
