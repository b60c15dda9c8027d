// What the counter image probes share: the sol metrics (cuscope's speed-of-light set,
// 9 passes on the H200), the kernel they measure, a set's passes of it and a millisecond
// clock.
#ifndef CUSCOPE_TESTS_GPU_PROBES_PROBE_SOL_CUH_
#define CUSCOPE_TESTS_GPU_PROBES_PROBE_SOL_CUH_

#include <chrono>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// A user-replay set's passes of 4 SAXPY launches each, until CUPTI has every pass (at
// most 64); the passes run. Needs probe_cupti.h.
inline int SaxpyPasses(CUpti_RangeProfiler_Object* profiler, int n, float* x, float* y) {
  bool all = false;
  int passes = 0;
  while (!all && passes < 64) {
    CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = profiler;
    CK(cuptiRangeProfilerStart(&st));
    for (int k = 0; k < 4; ++k) saxpy<<<n / 256, 256>>>(n, 2, x, y);
    CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = profiler;
    CK(cuptiRangeProfilerStop(&sp));
    all = sp.isAllPassSubmitted;
    ++passes;
  }
  return passes;
}

inline double Ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

const std::vector<const char*> kSol = {
    "gpu__time_duration.sum",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__issue_active.avg.pct_of_peak_sustained_elapsed"};

#endif  // CUSCOPE_TESTS_GPU_PROBES_PROBE_SOL_CUH_
