// Throughput of the profile file (lib/store): appending kernel rows the
// way the collector does (one growing string table, one Append per batch), and
// loading a profile back. Target: >= 500,000 kernel rows/s appended. GPU samples
// too (8 metrics each): appended in batches, and 1M of them loaded.
//
//   ./build/bench/store_bench
//   ./build/bench/store_bench --benchmark_filter=Append
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "lib/model/profile.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"

namespace cuscope::model {
namespace {

using store::LoadProfile;
using store::ProfileWriter;
using store::SaveProfile;

std::string BenchPath(const char* name) {
  const char* tmpdir = std::getenv("TMPDIR");
  return absl::StrCat(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp", "/cuscope_", name,
                      "_", getpid(), ".sqlite");
}

// Kernel launches shaped like a real trace: a few hundred distinct kernels,
// increasing 64-bit timestamps, a handful of streams.
void AddKernels(Profile& batch, size_t count, uint64_t& clock) {
  batch.kernels.reserve(batch.kernels.size() + count);
  for (size_t i = 0; i < count; ++i) {
    KernelRecord k;
    const uint64_t variant = clock % 311;
    k.name = batch.strings.Intern(absl::StrCat("void cutlass::Kernel<gemm_", variant, ">(Params)"));
    k.mangled_name = batch.strings.Intern(absl::StrCat("_ZN7cutlass6KernelI4gemm", variant, "E"));
    k.start_ns = 1'700'000'000'000'000'000ull + clock * 2000;
    k.end_ns = k.start_ns + 1500 + variant;
    k.device_id = 0;
    k.context_id = 1;
    k.stream_id = 7 + static_cast<uint32_t>(clock % 4);
    k.correlation_id = static_cast<uint32_t>(clock);
    k.grid = {static_cast<uint32_t>(128 + variant), 1, 1};
    k.block = {256, 1, 1};
    k.registers_per_thread = 64;
    k.static_shared_bytes = 16384;
    k.dynamic_shared_bytes = 32768;
    batch.kernels.push_back(k);
    ++clock;
  }
}

void BM_StoreAppend_Kernels(benchmark::State& state) {
  const size_t batch_size = static_cast<size_t>(state.range(0));
  const std::string path = BenchPath("append");
  auto writer = ProfileWriter::Create(path);
  if (!writer.ok()) {
    state.SkipWithError(writer.status().ToString().c_str());
    return;
  }
  Profile batch;  // the collector's: strings grow, records are cleared per batch
  uint64_t clock = 0;
  for (auto _ : state) {
    state.PauseTiming();
    batch.ClearRecords();
    AddKernels(batch, batch_size, clock);
    state.ResumeTiming();
    absl::Status status = (*writer)->Append(batch);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  (*writer)->Close().IgnoreError();
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch_size));
  unlink(path.c_str());
}
BENCHMARK(BM_StoreAppend_Kernels)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

// A mixed batch: each kernel with its launch API call, plus some memcpys and
// ranges; items are all records.
void BM_StoreAppend_Mixed(benchmark::State& state) {
  const size_t kernels = 10000;
  const std::string path = BenchPath("mixed");
  auto writer = ProfileWriter::Create(path);
  if (!writer.ok()) {
    state.SkipWithError(writer.status().ToString().c_str());
    return;
  }
  Profile batch;
  uint64_t clock = 0;
  size_t records = 0;
  for (auto _ : state) {
    state.PauseTiming();
    batch.ClearRecords();
    AddKernels(batch, kernels, clock);
    for (const KernelRecord& k : batch.kernels) {
      ApiRecord a;
      a.start_ns = k.start_ns - 5000;
      a.end_ns = a.start_ns + 3000;
      a.name = batch.strings.Intern("cudaLaunchKernel");
      a.correlation_id = k.correlation_id;
      a.process_id = 4242;
      a.thread_id = 4243;
      batch.api_calls.push_back(a);
      if (k.correlation_id % 10 == 0) {
        MemcpyRecord m;
        m.start_ns = k.end_ns;
        m.end_ns = m.start_ns + 800;
        m.bytes = 1 << 20;
        m.kind = MemcpyKind::kDtoH;
        m.src_kind = MemoryKind::kDevice;
        m.dst_kind = MemoryKind::kPinned;
        batch.memcpys.push_back(m);
        RangeRecord r;
        r.start_ns = a.start_ns;
        r.end_ns = m.end_ns;
        r.name = batch.strings.Intern("step");
        batch.ranges.push_back(r);
      }
    }
    records += batch.record_count();
    state.ResumeTiming();
    absl::Status status = (*writer)->Append(batch);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  (*writer)->Close().IgnoreError();
  state.SetItemsProcessed(static_cast<int64_t>(records));
  unlink(path.c_str());
}
BENCHMARK(BM_StoreAppend_Mixed)->Unit(benchmark::kMillisecond);

// SaveProfile of `profile` at BenchPath(name), each iteration; items are state.range(0)
// rows.
void SaveLoop(benchmark::State& state, const Profile& profile, const char* name) {
  const std::string path = BenchPath(name);
  for (auto _ : state) {
    absl::Status status = SaveProfile(profile, path);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  unlink(path.c_str());
}

// SaveProfile of a whole profile (create, schema, one batch, close).
void BM_SaveProfile(benchmark::State& state) {
  Profile profile;
  uint64_t clock = 0;
  AddKernels(profile, static_cast<size_t>(state.range(0)), clock);
  SaveLoop(state, profile, "save");
}
BENCHMARK(BM_SaveProfile)->Arg(100000)->Unit(benchmark::kMillisecond);

// SaveProfile of a rotate run's records made from launches (no times: placed when the
// profile is finished, lib/store/measured_times.h), 2 API calls each, with 1,000 counter
// sets of 41 values (a sample per 7 launches; the others take their signature's median).
void BM_SaveMadeKernels(benchmark::State& state) {
  Profile profile;
  const uint32_t count = static_cast<uint32_t>(state.range(0));
  const StringId launch = profile.strings.Intern("cudaLaunchKernel");
  const StringId driver = profile.strings.Intern("cuLaunchKernel");
  for (uint32_t i = 0; i < count; ++i) {
    KernelRecord k;
    k.name = profile.strings.Intern(absl::StrCat("k", i % 100));
    k.correlation_id = 100 + i;
    k.stream_id = 7;
    k.context_id = 1;
    k.grid = {128, 1, 1};
    k.block = {256, 1, 1};
    k.flags = kKernelCountersMeasured | kKernelFromLaunch;
    profile.kernels.push_back(k);
    for (const StringId name : {launch, driver}) {
      ApiRecord a;
      a.name = name;
      a.start_ns = 1'700'000'000'000'000'000ull + i * 100ull;
      a.end_ns = a.start_ns + 10;
      a.correlation_id = k.correlation_id;
      profile.api_calls.push_back(a);
    }
  }
  const StringId duration = profile.strings.Intern("gpu__time_duration.sum");
  for (uint32_t i = 0; i < 1000; ++i) {
    CounterSet set;
    set.name = profile.strings.Intern(absl::StrCat("k", i % 100));
    set.grid = {128, 1, 1};
    set.block = {256, 1, 1};
    set.correlation_ids = {100 + i * 7};
    set.values.emplace_back(duration, 50.0);
    for (int m = 0; m < 40; ++m) {
      set.values.emplace_back(profile.strings.Intern(absl::StrCat("metric", m)), 1.0);
    }
    profile.counters.push_back(set);
  }
  SaveLoop(state, profile, "made");
}
BENCHMARK(BM_SaveMadeKernels)->Arg(10000)->Unit(benchmark::kMillisecond);

// LoadProfile of `profile` saved at BenchPath(name), each iteration; items are
// state.range(0) rows.
void LoadLoop(benchmark::State& state, const Profile& profile, const char* name) {
  const std::string path = BenchPath(name);
  if (absl::Status status = SaveProfile(profile, path); !status.ok()) {
    state.SkipWithError(status.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<Profile> loaded = LoadProfile(path);
    if (!loaded.ok()) {
      state.SkipWithError(loaded.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(loaded->kernels.data());
    benchmark::DoNotOptimize(loaded->samples.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  unlink(path.c_str());
}

// LoadProfile of a profile with N kernels; items are kernel rows.
void BM_LoadKernels(benchmark::State& state) {
  Profile profile;
  uint64_t clock = 0;
  AddKernels(profile, static_cast<size_t>(state.range(0)), clock);
  LoadLoop(state, profile, "load");
}
BENCHMARK(BM_LoadKernels)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMillisecond);

// GPU samples shaped like PM sampling's: 8 metrics per sample, one every 10 us,
// a few of them NaN; the device's configuration in the profile's first batch.
void AddSamples(Profile& batch, size_t count, uint64_t& clock) {
  if (batch.sample_configs.empty() && clock == 0) {
    GpuSampleConfig c;
    c.interval_ns = 10'000;
    for (int i = 0; i < 8; ++i) c.metrics.push_back(batch.strings.Intern(absl::StrCat("m", i)));
    batch.sample_configs.push_back(c);
  }
  batch.samples.reserve(batch.samples.size() + count);
  for (size_t i = 0; i < count; ++i, ++clock) {
    GpuSample s;
    s.start_ns = 1'700'000'000'000'000'000ull + clock * 10'000;
    s.end_ns = s.start_ns + 10'000;
    s.values.resize(8);
    for (size_t j = 0; j < 8; ++j) s.values[j] = static_cast<double>((clock * 8 + j) % 1000) / 7;
    if (clock % 97 == 0) s.values[clock % 8] = std::nan("");
    batch.samples.push_back(std::move(s));
  }
}

// Appending samples in the collector's batches; items are samples.
void BM_StoreAppend_Samples(benchmark::State& state) {
  const size_t batch_size = static_cast<size_t>(state.range(0));
  const std::string path = BenchPath("samples");
  auto writer = ProfileWriter::Create(path);
  if (!writer.ok()) {
    state.SkipWithError(writer.status().ToString().c_str());
    return;
  }
  Profile batch;
  uint64_t clock = 0;
  for (auto _ : state) {
    state.PauseTiming();
    batch.ClearRecords();
    AddSamples(batch, batch_size, clock);
    state.ResumeTiming();
    absl::Status status = (*writer)->Append(batch);
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      break;
    }
  }
  (*writer)->Close().IgnoreError();
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch_size));
  unlink(path.c_str());
}
BENCHMARK(BM_StoreAppend_Samples)->Arg(10000)->Unit(benchmark::kMillisecond);

// LoadProfile of a profile with N samples of 8 metrics; items are samples.
void BM_LoadSamples(benchmark::State& state) {
  Profile profile;
  uint64_t clock = 0;
  AddSamples(profile, static_cast<size_t>(state.range(0)), clock);
  LoadLoop(state, profile, "load_samples");
}
BENCHMARK(BM_LoadSamples)->Arg(1000000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cuscope::model

BENCHMARK_MAIN();
