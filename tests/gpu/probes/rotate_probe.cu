// Development probe: user replay + auto range, windows driven from the main thread
// (no callbacks), to tell a Range Profiler usage problem from a callback problem.
//   rotate_probe [setconfig_each_pass=0] [launches_per_window=1]
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { CUptiResult r_ = (x); if (r_) { const char* s; cuptiGetResultString(r_, &s); printf("%s:%d %s -> %s\n", __FILE__, __LINE__, #x, s); exit(1);} } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  int each = argc > 1 ? atoi(argv[1]) : 0;
  int per_window = argc > 2 ? atoi(argv[2]) : 1;
  const int n = 1 << 26;
  float *x, *y;
  cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4);
  cudaMemset(x, 0, n * 4); cudaMemset(y, 0, n * 4);
  saxpy<<<n / 256, 256>>>(n, 2, x, y);
  cudaDeviceSynchronize();
  CUcontext ctx; cuCtxGetCurrent(&ctx);
  CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CK(cuptiProfilerInitialize(&pi));
  CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  CK(cuptiDeviceGetChipName(&cn));
  const char* metrics[] = {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
      "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
      "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"};
  CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER; hi.pChipName = cn.pChipName;
  CK(cuptiProfilerHostInitialize(&hi));
  CUpti_Profiler_Host_ConfigAddMetrics_Params am = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  am.pHostObject = hi.pHostObject; am.ppMetricNames = metrics; am.numMetrics = 6;
  CK(cuptiProfilerHostConfigAddMetrics(&am));
  CUpti_Profiler_Host_GetConfigImageSize_Params cs = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  cs.pHostObject = hi.pHostObject; CK(cuptiProfilerHostGetConfigImageSize(&cs));
  std::vector<uint8_t> img(cs.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params gi = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  gi.pHostObject = hi.pHostObject; gi.configImageSize = img.size(); gi.pConfigImage = img.data();
  CK(cuptiProfilerHostGetConfigImage(&gi));
  CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = ctx; CK(cuptiRangeProfilerEnable(&en));
  CUpti_RangeProfiler_GetCounterDataSize_Params ds = {CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  ds.pRangeProfilerObject = en.pRangeProfilerObject; ds.pMetricNames = metrics; ds.numMetrics = 6;
  ds.maxNumOfRanges = 64; ds.maxNumRangeTreeNodes = 64;
  CK(cuptiRangeProfilerGetCounterDataSize(&ds));
  std::vector<uint8_t> data(ds.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  ci.pRangeProfilerObject = en.pRangeProfilerObject; ci.counterDataSize = data.size(); ci.pCounterData = data.data();
  CK(cuptiRangeProfilerCounterDataImageInitialize(&ci));
  auto setconfig = [&](size_t pass) {
    CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    sc.pRangeProfilerObject = en.pRangeProfilerObject; sc.configSize = img.size(); sc.pConfig = img.data();
    sc.counterDataImageSize = data.size(); sc.pCounterDataImage = data.data();
    sc.range = CUPTI_AutoRange; sc.replayMode = CUPTI_UserReplay; sc.maxRangesPerPass = 64;
    sc.numNestingLevels = 1; sc.minNestingLevel = 1; sc.passIndex = pass; sc.targetNestingLevel = 1;
    CK(cuptiRangeProfilerSetConfig(&sc));
  };
  setconfig(0);
  size_t pass = 0; bool all = false; int windows = 0;
  while (!all && windows < 10) {
    if (each && pass > 0) setconfig(pass);
    CUpti_RangeProfiler_Start_Params st = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    st.pRangeProfilerObject = en.pRangeProfilerObject; CK(cuptiRangeProfilerStart(&st));
    for (int k = 0; k < per_window; ++k) saxpy<<<n / 256, 256>>>(n, 2, x, y);
    CUpti_RangeProfiler_Stop_Params sp = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    sp.pRangeProfilerObject = en.pRangeProfilerObject; CK(cuptiRangeProfilerStop(&sp));
    printf("window %d: next pass %zu all %d\n", windows, sp.passIndex, sp.isAllPassSubmitted);
    pass = sp.passIndex; all = sp.isAllPassSubmitted; ++windows;
  }
  CUpti_RangeProfiler_DecodeData_Params dd = {CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  dd.pRangeProfilerObject = en.pRangeProfilerObject; CK(cuptiRangeProfilerDecodeData(&dd));
  CUpti_RangeProfiler_GetCounterDataInfo_Params inf = {CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  inf.pCounterDataImage = data.data(); inf.counterDataImageSize = data.size();
  CK(cuptiRangeProfilerGetCounterDataInfo(&inf));
  printf("ranges %zu dropped %zu\n", inf.numTotalRanges, dd.numOfRangeDropped);
  for (size_t r = 0; r < inf.numTotalRanges; ++r) {
    double v[6];
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ev.pHostObject = hi.pHostObject; ev.pCounterDataImage = data.data(); ev.counterDataImageSize = data.size();
    ev.rangeIndex = r; ev.ppMetricNames = metrics; ev.numMetrics = 6; ev.pMetricValues = v;
    CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
    printf("range %zu: dur %.0f rd %.4g wr %.4g fadd %.4g fmul %.4g ffma %.4g\n", r, v[0], v[1], v[2], v[3], v[4], v[5]);
  }
  return 0;
}
