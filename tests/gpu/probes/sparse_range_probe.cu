// Development probe (issue 11): what a user range around a few launches of a repeating
// step costs, against auto range on every launch. One window (Start..Stop, user replay)
// per step of 400 launches of 4 kernel shapes; a pass of the configuration per window.
//   sparse_range_probe MODE SET [steps=24] [trace=0]
//   MODE: none | idle (started, no range) | sparse:K (a user range around every K-th
//         launch) | all (a user range around every launch) | auto (auto range)
//   SET:  dram (duration, DRAM read/write: 1 pass) | sass (FP32 instruction counts) |
//         both (the two: 2 passes) | sol (SM and memory throughput %: 9 passes, so
//         most windows end without a decode)
//   trace=1: CUPTI kernel activity records on (counted), to see whether instruction
//         counters read 0 while kernels are traced in user-range mode.
// Prints the median step time over steps 3.., ranges decoded, and a few ranges' values.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "probe_cupti.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>


__global__ void axpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

static long g_records = 0;
static void CUPTIAPI Requested(uint8_t** buf, size_t* size, size_t* max) {
  *size = 8 << 20;
  *buf = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max = 0;
}
static void CUPTIAPI Completed(CUcontext, uint32_t, uint8_t* buf, size_t, size_t valid) {
  CUpti_Activity* rec = nullptr;
  while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) ++g_records;
  free(buf);
}

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "none";
  std::string set = argc > 2 ? argv[2] : "dram";
  int steps = argc > 3 ? atoi(argv[3]) : 24;
  bool trace = argc > 4 && atoi(argv[4]) != 0;
  int every = mode.rfind("sparse:", 0) == 0 ? atoi(mode.c_str() + 7) : (mode == "all" ? 1 : 0);
  const int kLaunches = 400;
  const int sizes[4] = {1 << 16, 1 << 20, 1 << 22, 1 << 18};
  float *x, *y;
  cudaMalloc(&x, (1 << 22) * 4);
  cudaMalloc(&y, (1 << 22) * 4);
  cudaMemset(x, 0, (1 << 22) * 4);
  cudaMemset(y, 0, (1 << 22) * 4);
  axpy<<<1, 32>>>(1, 1, x, y);
  cudaDeviceSynchronize();
  if (trace) {
    CK(cuptiActivityRegisterCallbacks(Requested, Completed));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  }
  CUcontext ctx;
  cuCtxGetCurrent(&ctx);
  std::vector<const char*> metrics;
  if (set == "dram" || set == "both")
    metrics.insert(metrics.end(), {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum"});
  if (set == "sol")  // 9 passes (measured on the H200): windows without a decode between
    metrics.insert(metrics.end(), {"sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                   "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"});
  if (set == "sass" || set == "both")
    metrics.insert(metrics.end(), {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
                                   "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
                                   "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"});
  bool profiling = mode != "none";
  CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  HostConfig config;
  std::vector<uint8_t>& img = config.image;
  std::vector<uint8_t> data;
  const size_t kMaxRanges = 512;
  auto init_data = [&]() {
    data.assign(RangeCounterDataSize(en.pRangeProfilerObject, metrics, kMaxRanges), 0);
    InitializeRangeCounterData(en.pRangeProfilerObject, data);
  };
  auto set_config = [&](size_t pass) {
    SetRangeConfig(en.pRangeProfilerObject, img, data,
                   mode == "auto" ? CUPTI_AutoRange : CUPTI_UserRange, CUPTI_UserReplay,
                   kMaxRanges, pass);
  };
  if (profiling) {
    CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CK(cuptiProfilerInitialize(&pi));
    config = MakeHostConfig(ProbeChip(), CUPTI_PROFILER_TYPE_RANGE_PROFILER, metrics);
    en.ctx = ctx;
    CK(cuptiRangeProfilerEnable(&en));
    init_data();
    set_config(0);
  }
  std::vector<double> ms;
  int samples = 0, decoded = 0, dropped = 0;
  std::vector<double> first_values;
  char name[32];
  for (int s = 0; s < steps; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    if (profiling) {
      CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
      st.pRangeProfilerObject = en.pRangeProfilerObject;
      CK(cuptiRangeProfilerStart(&st));
    }
    for (int k = 0; k < kLaunches; ++k) {
      int n = sizes[k % 4];
      bool ranged = every > 0 && k % every == 0;
      if (ranged) {
        snprintf(name, sizeof name, "l%d", k);
        CUpti_RangeProfiler_PushRange_Params pr = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
        pr.pRangeProfilerObject = en.pRangeProfilerObject;
        pr.pRangeName = name;
        CK(cuptiRangeProfilerPushRange(&pr));
      }
      axpy<<<(n + 255) / 256, 256>>>(n, 1.0f, x, y);
      if (ranged) {
        CUpti_RangeProfiler_PopRange_Params pp = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        pp.pRangeProfilerObject = en.pRangeProfilerObject;
        CK(cuptiRangeProfilerPopRange(&pp));
      }
    }
    if (profiling) {
      CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
      sp.pRangeProfilerObject = en.pRangeProfilerObject;
      CK(cuptiRangeProfilerStop(&sp));
      if (sp.isAllPassSubmitted) {
        CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
        dd.pRangeProfilerObject = en.pRangeProfilerObject;
        CK(cuptiRangeProfilerDecodeData(&dd));
        CUpti_RangeProfiler_GetCounterDataInfo_Params inf = {
            CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
        inf.pCounterDataImage = data.data();
        inf.counterDataImageSize = data.size();
        CK(cuptiRangeProfilerGetCounterDataInfo(&inf));
        ++samples;
        decoded += inf.numTotalRanges;
        dropped += dd.numOfRangeDropped;
        if (first_values.empty()) {
          for (size_t r = 0; r < std::min<size_t>(inf.numTotalRanges, 4); ++r) {
            const std::vector<double> v = EvaluateRange(config.host, data, r, metrics);
            first_values.insert(first_values.end(), v.begin(), v.end());
          }
        }
        init_data();
        set_config(0);
      }
    }
    cudaDeviceSynchronize();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  if (trace) cuptiActivityFlushAll(1);
  std::vector<double> tail(ms.begin() + std::min<size_t>(3, ms.size()), ms.end());
  std::sort(tail.begin(), tail.end());
  printf("probe mode=%s set=%s steps=%d trace=%d: median step %.3f ms (min %.3f max %.3f), "
         "samples %d, ranges decoded %d, dropped %d, kernel records %ld\n",
         mode.c_str(), set.c_str(), steps, trace, tail.empty() ? 0 : tail[tail.size() / 2],
         tail.empty() ? 0 : tail.front(), tail.empty() ? 0 : tail.back(), samples, decoded, dropped,
         g_records);
  for (size_t i = 0; i < first_values.size(); ++i)
    printf("%s%s=%.4g", i % metrics.size() == 0 ? "\n  range: " : " ", metrics[i % metrics.size()],
           first_values[i]);
  printf("\n");
  return 0;
}
