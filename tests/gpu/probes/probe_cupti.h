// What the development probes (tests/gpu/probes/*.cu, built by hand with nvcc) share:
// a CUPTI call that must succeed, and a metric configuration from the Profiler Host API.
#ifndef CUSCOPE_TESTS_GPU_PROBES_PROBE_CUPTI_H_
#define CUSCOPE_TESTS_GPU_PROBES_PROBE_CUPTI_H_

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                \
  do {                                                       \
    CUptiResult r_ = (x);                                    \
    if (r_) {                                                \
      const char* s;                                         \
      cuptiGetResultString(r_, &s);                          \
      printf("%s:%d %s -> %s\n", __FILE__, __LINE__, #x, s); \
      exit(1);                                               \
    }                                                        \
  } while (0)

// A host object holding `metrics`, its configuration image and the passes it needs.
struct HostConfig {
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> image;
  size_t passes = 0;
};

// The chip of device 0 (after cuptiProfilerInitialize).
inline const char* ProbeChip() {
  CUpti_Device_GetChipName_Params cn = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  CK(cuptiDeviceGetChipName(&cn));
  return cn.pChipName;
}

// Builds the configuration; on failure the host object is released and the error
// returned (out->host stays null).
inline CUptiResult TryHostConfig(const char* chip, CUpti_ProfilerType type,
                                 const std::vector<const char*>& metrics, HostConfig* out) {
  CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  hi.profilerType = type;
  hi.pChipName = chip;
  CUptiResult r = cuptiProfilerHostInitialize(&hi);
  if (r != CUPTI_SUCCESS) return r;
  CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  am.pHostObject = hi.pHostObject;
  am.ppMetricNames = const_cast<const char**>(metrics.data());
  am.numMetrics = metrics.size();
  r = cuptiProfilerHostConfigAddMetrics(&am);
  CUpti_Profiler_Host_GetConfigImageSize_Params cs = {
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  cs.pHostObject = hi.pHostObject;
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetConfigImageSize(&cs);
  std::vector<uint8_t> image(r == CUPTI_SUCCESS ? cs.configImageSize : 0);
  CUpti_Profiler_Host_GetConfigImage_Params gi = {
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  gi.pHostObject = hi.pHostObject;
  gi.configImageSize = image.size();
  gi.pConfigImage = image.data();
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetConfigImage(&gi);
  CUpti_Profiler_Host_GetNumOfPasses_Params np = {
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  np.configImageSize = image.size();
  np.pConfigImage = image.data();
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetNumOfPasses(&np);
  if (r != CUPTI_SUCCESS) {
    CUpti_Profiler_Host_Deinitialize_Params d = {
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    d.pHostObject = hi.pHostObject;
    cuptiProfilerHostDeinitialize(&d);
    return r;
  }
  out->host = hi.pHostObject;
  out->image = std::move(image);
  out->passes = np.numOfPasses;
  return CUPTI_SUCCESS;
}

inline HostConfig MakeHostConfig(const char* chip, CUpti_ProfilerType type,
                                 const std::vector<const char*>& metrics) {
  HostConfig c;
  CK(TryHostConfig(chip, type, metrics, &c));
  return c;
}

// The values of `metrics` for range (or sample) `index` of a decoded counter data image.
inline std::vector<double> EvaluateRange(CUpti_Profiler_Host_Object* host,
                                         const std::vector<uint8_t>& data, size_t index,
                                         const std::vector<const char*>& metrics) {
  std::vector<double> v(metrics.size());
  CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  ev.pHostObject = host;
  ev.pCounterDataImage = data.data();
  ev.counterDataImageSize = data.size();
  ev.rangeIndex = index;
  ev.ppMetricNames = const_cast<const char**>(metrics.data());
  ev.numMetrics = metrics.size();
  ev.pMetricValues = v.data();
  CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
  return v;
}

// The Range Profiler on the current context (CUPTI's profiler initialized first).
inline CUpti_RangeProfiler_Object* EnableRangeProfiler() {
  CUcontext ctx;
  cuCtxGetCurrent(&ctx);
  CUpti_Profiler_Initialize_Params pi = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CK(cuptiProfilerInitialize(&pi));
  CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  CK(cuptiRangeProfilerEnable(&en));
  return en.pRangeProfilerObject;
}

// Prints a failed call and returns false instead of exiting (for probes that go on).
inline bool ProbeOk(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return true;
  const char* s;
  cuptiGetResultString(r, &s);
  printf("  %s -> %s\n", what, s);
  return false;
}

// Disables `object` and enables a new Range Profiler on the current context (CUPTI frees
// its state for the old one); the new object, or null after a failure (printed).
inline CUpti_RangeProfiler_Object* ReenableRangeProfiler(CUpti_RangeProfiler_Object* object) {
  CUpti_RangeProfiler_Disable_Params dis = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  dis.pRangeProfilerObject = object;
  if (!ProbeOk(cuptiRangeProfilerDisable(&dis), "Disable")) return nullptr;
  CUcontext ctx;
  cuCtxGetCurrent(&ctx);
  CUpti_RangeProfiler_Enable_Params en = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  en.ctx = ctx;
  if (!ProbeOk(cuptiRangeProfilerEnable(&en), "Enable")) return nullptr;
  return en.pRangeProfilerObject;
}

// The bytes of a counter data image for `metrics` and `max_ranges` ranges (asked again
// before re-initializing a used image: CUDA 13.0 refuses otherwise).
inline size_t RangeCounterDataSize(CUpti_RangeProfiler_Object* object,
                                   const std::vector<const char*>& metrics, size_t max_ranges) {
  CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  ds.pRangeProfilerObject = object;
  ds.pMetricNames = const_cast<const char**>(metrics.data());
  ds.numMetrics = metrics.size();
  ds.maxNumOfRanges = max_ranges;
  ds.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges);
  CK(cuptiRangeProfilerGetCounterDataSize(&ds));
  return ds.counterDataSize;
}

inline void InitializeRangeCounterData(CUpti_RangeProfiler_Object* object,
                                       std::vector<uint8_t>& data) {
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params ci = {
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  ci.pRangeProfilerObject = object;
  ci.counterDataSize = data.size();
  ci.pCounterData = data.data();
  CK(cuptiRangeProfilerCounterDataImageInitialize(&ci));
}

// A counter data image for `metrics` and `max_ranges` ranges, initialized.
inline std::vector<uint8_t> RangeCounterData(CUpti_RangeProfiler_Object* object,
                                             const std::vector<const char*>& metrics,
                                             size_t max_ranges) {
  std::vector<uint8_t> data(RangeCounterDataSize(object, metrics, max_ranges));
  InitializeRangeCounterData(object, data);
  return data;
}

// cuptiRangeProfilerSetConfig with one nesting level; its result.
inline CUptiResult TrySetRangeConfig(CUpti_RangeProfiler_Object* object,
                                     const std::vector<uint8_t>& config, std::vector<uint8_t>& data,
                                     CUpti_ProfilerRange range, CUpti_ProfilerReplayMode replay,
                                     size_t max_ranges, size_t pass) {
  CUpti_RangeProfiler_SetConfig_Params sc = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  sc.pRangeProfilerObject = object;
  sc.configSize = config.size();
  sc.pConfig = config.data();
  sc.counterDataImageSize = data.size();
  sc.pCounterDataImage = data.data();
  sc.range = range;
  sc.replayMode = replay;
  sc.maxRangesPerPass = max_ranges;
  sc.numNestingLevels = 1;
  sc.minNestingLevel = 1;
  sc.passIndex = pass;
  sc.targetNestingLevel = 1;
  return cuptiRangeProfilerSetConfig(&sc);
}

// The same, exiting on failure.
inline void SetRangeConfig(CUpti_RangeProfiler_Object* object, const std::vector<uint8_t>& config,
                           std::vector<uint8_t>& data, CUpti_ProfilerRange range,
                           CUpti_ProfilerReplayMode replay, size_t max_ranges, size_t pass) {
  CK(TrySetRangeConfig(object, config, data, range, replay, max_ranges, pass));
}

inline void ReleaseHostConfig(HostConfig& c) {
  if (c.host == nullptr) return;
  CUpti_Profiler_Host_Deinitialize_Params d = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  d.pHostObject = c.host;
  cuptiProfilerHostDeinitialize(&d);
  c.host = nullptr;
}

#endif  // CUSCOPE_TESTS_GPU_PROBES_PROBE_CUPTI_H_
