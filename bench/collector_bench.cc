// The collector's hot paths on the host, driven by the fake CUPTI (tests/fake_cupti,
// linked instead of libcupti): the CUPTI callback a launch raises, and a completed
// activity buffer on its way into a batch. Only the collector's public entries are
// used (Collector, its tracer and region tracker), so the same source measures any
// layout of lib/collect behind them.
//
//   ./build/bench/collector_bench
//   ./build/bench/collector_bench --benchmark_filter=BufferCompleted
#include <benchmark/benchmark.h>
#include <cupti.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "lib/collect/collector.h"
#include "lib/collect/options.h"
#include "lib/model/profile.h"
#include "tests/fake_cupti/fake_cupti.h"

// The collector's callback and its userdata, as the fake CUPTI's subscription got them
// (the link wraps cuptiSubscribe: bench/CMakeLists.txt).
namespace {
CUpti_CallbackFunc g_callback = nullptr;
void* g_userdata = nullptr;
}  // namespace

extern "C" CUptiResult CUPTIAPI __real_cuptiSubscribe(CUpti_SubscriberHandle* subscriber,
                                                      CUpti_CallbackFunc callback, void* userdata);
extern "C" CUptiResult CUPTIAPI __wrap_cuptiSubscribe(CUpti_SubscriberHandle* subscriber,
                                                      CUpti_CallbackFunc callback, void* userdata) {
  g_callback = callback;
  g_userdata = userdata;
  return __real_cuptiSubscribe(subscriber, callback, userdata);
}

namespace cuscope::collect {
namespace {

std::atomic<uint64_t> g_sunk_kernels{0};

CollectOptions TraceOptions() {
  CollectOptions options;  // trace only: every kind, the default API calls, no counters
  options.trace.buffer_bytes = 8ull << 20;
  options.trace.max_buffers = 4;
  return options;
}

// The session's collector, its tracer started once (never stopped or destroyed, as
// in a session), with a sink that only counts what reaches it.
Collector& TracingCollector() {
  static Collector* collector = [] {
    auto* c = new Collector();
    absl::Status st = c->tracer().Start(TraceOptions(), [](const model::Profile& batch, bool) {
      g_sunk_kernels.fetch_add(batch.kernels.size(), std::memory_order_relaxed);
    });
    if (!st.ok()) {
      std::fprintf(stderr, "collector_bench: %s\n", std::string(st.message()).c_str());
      std::exit(1);
    }
    // Capture control subscribes the collector once: its callback is then known.
    CollectOptions capture = TraceOptions();
    capture.capture.mode = CaptureMode::kRange;
    capture.capture.range = "step";
    st = c->regions().Start(capture);
    c->regions().Stop();
    if (!st.ok() || g_callback == nullptr) {
      std::fprintf(stderr, "collector_bench: the collector did not subscribe\n");
      std::exit(1);
    }
    return c;
  }();
  return *collector;
}

// One cudaLaunchKernel as CUPTI reports it to the subscriber: API_ENTER, then
// API_EXIT, on the launching thread.
void LaunchLoop(benchmark::State& state) {
  CUpti_CallbackData cb{};
  cb.functionName = "cudaLaunchKernel";
  cb.symbolName = "_Z21fake_gemm_kernel_f32PfS_S_i";
  cb.context = reinterpret_cast<CUcontext>(uintptr_t{1});
  uint32_t correlation = 1;
  for (auto _ : state) {
    cb.correlationId = correlation++;
    cb.callbackSite = CUPTI_API_ENTER;
    g_callback(g_userdata, CUPTI_CB_DOMAIN_RUNTIME_API,
               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &cb);
    cb.callbackSite = CUPTI_API_EXIT;
    g_callback(g_userdata, CUPTI_CB_DOMAIN_RUNTIME_API,
               CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, &cb);
  }
  state.SetItemsProcessed(state.iterations());
}

// Trace only: the tracer runs and no part of the collector takes launch callbacks.
// Items are launches (an API_ENTER and an API_EXIT callback each).
void BM_LaunchCallback_TraceOnly(benchmark::State& state) {
  TracingCollector();
  LaunchLoop(state);
}
BENCHMARK(BM_LaunchCallback_TraceOnly);

// Counters off, capture by region on (--capture-range): the region tracker is
// subscribed and sees each launch callback; the counter sampler is not started.
void BM_LaunchCallback_CountersOff(benchmark::State& state) {
  Collector& c = TracingCollector();
  CollectOptions capture = TraceOptions();
  capture.capture.mode = CaptureMode::kRange;
  capture.capture.range = "step";
  if (absl::Status st = c.regions().Start(capture); !st.ok()) {
    state.SkipWithError(std::string(st.message()).c_str());
    return;
  }
  LaunchLoop(state);
  c.regions().Stop();
}
BENCHMARK(BM_LaunchCallback_CountersOff);

// A completed buffer of N kernel records: CUPTI's completion callback (from a forced
// flush), the records converted into the batch, the drains (counter sets, scopes, GPU
// samples: none pending) and the sink, the buffer back in the pool. The records are
// made with the timer paused. Items are kernel records.
void BM_BufferCompleted_Kernels(benchmark::State& state) {
  Collector& c = TracingCollector();
  const int n = static_cast<int>(state.range(0));
  uint32_t correlation = 1;
  const uint64_t sunk_before = g_sunk_kernels.load();
  for (auto _ : state) {
    state.PauseTiming();
    for (int i = 0; i < n; ++i) fake_cupti::Emit(fake_cupti::Kind::kKernel, correlation++);
    state.ResumeTiming();
    c.tracer().Flush(/*forced=*/true);
  }
  const uint64_t sunk = g_sunk_kernels.load() - sunk_before;
  if (sunk != uint64_t(state.iterations()) * uint64_t(n)) {
    state.SkipWithError("kernel records were lost on the way to the sink");
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_BufferCompleted_Kernels)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace cuscope::collect

BENCHMARK_MAIN();
