// The rest of the CUPTI functions lib/collect links (hardware counters, the Range
// Profiler, the Profiler Host API), for tests that link the whole collector (the
// session) with the fake CUPTI (tests/fake_cupti/fake_cupti.h) instead of libcupti.
// Counters are off in those tests: each of these answers CUPTI_ERROR_NOT_SUPPORTED.
// The Profiler Host API, the chip and device queries, PM sampling and the callback
// subscription are faked in fake_pm_sampling.cc (GPU metrics sampling works there).
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

namespace {
constexpr CUptiResult kNotHere = CUPTI_ERROR_NOT_SUPPORTED;
}  // namespace

extern "C" {

CUptiResult CUPTIAPI
cuptiProfilerHostGetBaseMetrics(CUpti_Profiler_Host_GetBaseMetrics_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI
cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerCounterDataImageInitialize(
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI
cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI
cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params* pParams) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* pParams) {
  return kNotHere;
}

// Kernel records made from launches (lib/collect/held_launches.cc).
CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t perThreadStream,
                                        uint32_t* streamId) {
  return kNotHere;
}

// PC sampling (lib/collect/pc_calls.cc): not supported, so `source` runs say so.
CUptiResult CUPTIAPI cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams*) { return kNotHere; }
CUptiResult CUPTIAPI cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams*) { return kNotHere; }
CUptiResult CUPTIAPI cuptiPCSamplingStart(CUpti_PCSamplingStartParams*) { return kNotHere; }
CUptiResult CUPTIAPI cuptiPCSamplingStop(CUpti_PCSamplingStopParams*) { return kNotHere; }
CUptiResult CUPTIAPI cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams*) { return kNotHere; }
CUptiResult CUPTIAPI cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams*) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams*) {
  return kNotHere;
}
CUptiResult CUPTIAPI
cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams*) {
  return kNotHere;
}
CUptiResult CUPTIAPI cuptiGetCubinCrc(CUpti_GetCubinCrcParams*) { return kNotHere; }
CUptiResult CUPTIAPI cuptiGetSassToSourceCorrelation(CUpti_GetSassToSourceCorrelationParams*) {
  return kNotHere;
}
}  // extern "C"
