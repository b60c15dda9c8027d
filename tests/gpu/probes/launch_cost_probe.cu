// Development probe: what does each CUPTI client state add to a CUDA call on the host?
// GPT-2's training step ran 1.03-1.33x slower after rotate had sampled every signature
// than under the trace (session 15), with every API call slower, cudaMemsetAsync too
// (no callback of ours fires on it). This times 20,000 launches of an empty kernel and
// 20,000 cudaMemsetAsync calls (us a call, median of 5 rounds) in states added one by one:
//   plain          no CUPTI
//   activity       kernel, runtime, driver and memset records (what the trace enables)
//   callbacks      + a subscriber with the launch callbacks on (a no-op callback)
//   profiler init  + cuptiProfilerInitialize
//   range enabled  + cuptiRangeProfilerEnable on the context, no set yet
//   after sol set  + one user-replay set of the sol metrics, decoded
//   then disabled and enabled in turn, twice with a sol set and twice with a set of
//   SASS instruction counters (callbacks and activity still on)
//   no callbacks   cuptiUnsubscribe (activity still on)
// `launch_cost_probe plain` measures the plain state 3 times and nothing else: run it
// under `cuscope run` to time cuscope's own clients (the first round may hold a set).
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "probe_cupti.h"
#include "probe_sol.cuh"

namespace {

__global__ void empty() {}

// Roofline's SASS instruction counters (patched code), with the duration.
const std::vector<const char*> kSass = {"gpu__time_duration.sum",
                                        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"};

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 8 << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI BufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) {
  free(buffer);
}

void CUPTIAPI OnLaunch(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// Microseconds a call: median of 5 rounds of `n` calls, the queue drained between rounds.
template <typename F>
double UsPerCall(int n, F call) {
  double best[5];
  for (double& r : best) {
    cudaDeviceSynchronize();
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) call();
    r = Ms(t0) * 1000.0 / n;
    cudaDeviceSynchronize();
  }
  std::sort(best, best + 5);
  return best[2];
}

void Measure(const char* state, void* scratch) {
  const int n = 20000;
  double launch = UsPerCall(n, [] { empty<<<1, 32>>>(); });
  double memset = UsPerCall(n, [scratch] { cudaMemsetAsync(scratch, 0, 4); });
  printf("%-14s launch %.2f us  memset %.2f us\n", state, launch, memset);
}

// A user-replay set of `metrics`, 4 SAXPY launches a pass, decoded.
void RunSet(CUpti_RangeProfiler_Object* profiler, const HostConfig& config,
            const std::vector<const char*>& metrics, int n, float* x, float* y) {
  std::vector<uint8_t> data = RangeCounterData(profiler, metrics, 64);
  CK(TrySetRangeConfig(profiler, config.image, data, CUPTI_AutoRange, CUPTI_UserReplay, 64, 0));
  SaxpyPasses(profiler, n, x, y);
  CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  dd.pRangeProfilerObject = profiler;
  CK(cuptiRangeProfilerDecodeData(&dd));
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  void* scratch = nullptr;
  cudaMalloc(&scratch, 1 << 20);
  int n = 1 << 24;
  float *x = nullptr, *y = nullptr;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  empty<<<1, 32>>>();
  cudaDeviceSynchronize();
  Measure("plain", scratch);
  if (argc > 1 && strcmp(argv[1], "plain") == 0) {
    Measure("plain again", scratch);
    Measure("plain again", scratch);
    return 0;
  }

  CK(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted));
  for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
                               CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_ACTIVITY_KIND_MEMSET}) {
    CK(cuptiActivityEnable(k));
  }
  Measure("activity", scratch);

  CUpti_SubscriberHandle subscriber;
  CK(cuptiSubscribe(&subscriber, OnLaunch, nullptr));
  CK(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                         CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  CK(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  CK(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
  Measure("callbacks", scratch);

  CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CK(cuptiProfilerInitialize(&pi));
  Measure("profiler init", scratch);

  CUcontext ctx;
  cuCtxGetCurrent(&ctx);
  CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  CK(cuptiRangeProfilerEnable(&en));
  CUpti_RangeProfiler_Object* profiler = en.pRangeProfilerObject;
  Measure("range enabled", scratch);

  HostConfig sol = MakeHostConfig(ProbeChip(), CUPTI_PROFILER_TYPE_RANGE_PROFILER, kSol);
  HostConfig sass = MakeHostConfig(ProbeChip(), CUPTI_PROFILER_TYPE_RANGE_PROFILER, kSass);
  RunSet(profiler, sol, kSol, n, x, y);
  Measure("after sol set", scratch);
  // Enabled and disabled in turn (the launch cost is noisy across a run: compare
  // neighbours), then the same after a set with SASS instruction counters.
  for (const auto* which : {&kSol, &kSass}) {
    HostConfig& config = which == &kSol ? sol : sass;
    const char* label = which == &kSol ? "sol" : "sass";
    for (int round = 0; round < 2; ++round) {
      CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
      dis.pRangeProfilerObject = profiler;
      CK(cuptiRangeProfilerDisable(&dis));
      Measure("disabled", scratch);
      CUpti_RangeProfiler_Enable_Params again = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
      again.ctx = ctx;
      CK(cuptiRangeProfilerEnable(&again));
      profiler = again.pRangeProfilerObject;
      RunSet(profiler, config, *which, n, x, y);
      printf("(%s set) ", label);
      Measure("after set", scratch);
    }
  }
  CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  dis.pRangeProfilerObject = profiler;
  CK(cuptiRangeProfilerDisable(&dis));
  Measure("disabled", scratch);

  CK(cuptiUnsubscribe(subscriber));
  Measure("no callbacks", scratch);
  cuptiActivityFlushAll(1);
  return 0;
}
