#include "lib/collect/range_profiler.h"

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "absl/strings/str_cat.h"
#include "lib/collect/cupti_result.h"

namespace cuscope::collect {
std::string ExplainCupti(const char* what, CUptiResult r) {
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) {
    return absl::StrCat(
        "not permitted (ERR_NVGPUCTRPERM) at ", what,
        ": GPU performance counters are restricted to administrators; run as root or set "
        "`options nvidia NVreg_RestrictProfilingToAdminUsers=0` (modprobe) and reload the driver");
  }
  if (r == CUPTI_ERROR_HARDWARE_BUSY) {
    return absl::StrCat("counters busy at ", what,
                        ": another profiler (ncu, nsys, DCGM, PM sampling) holds them");
  }
  if (r == CUPTI_ERROR_NOT_SUPPORTED || r == CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED) {
    return absl::StrCat("not supported on this device at ", what, ": ", CuptiResultString(r));
  }
  return absl::StrCat(what, " failed: ", CuptiResultString(r));
}

CUptiResult InitializeProfiler() {
  CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  return cuptiProfilerInitialize(&init);
}

uint32_t DeviceOf(CUcontext ctx) {
  uint32_t device_id = 0;
  if (cuptiGetDeviceId(ctx, &device_id) != CUPTI_SUCCESS) device_id = 0;
  return device_id;
}

CUptiResult ChipName(uint32_t device_id, std::string* chip) {
  CUpti_Device_GetChipName_Params p = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  p.deviceIndex = device_id;
  CUptiResult r = cuptiDeviceGetChipName(&p);
  if (r == CUPTI_SUCCESS) *chip = p.pChipName;
  return r;
}

CUptiResult RangeProfiler::Enable(CUcontext ctx) {
  CUpti_RangeProfiler_Enable_Params enable = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = ctx;
  CUptiResult r = cuptiRangeProfilerEnable(&enable);
  if (r == CUPTI_SUCCESS) object_ = enable.pRangeProfilerObject;
  return r;
}

CUptiResult RangeProfiler::Disable() {
  CUpti_RangeProfiler_Disable_Params disable = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  disable.pRangeProfilerObject = object_;
  CUptiResult r = cuptiRangeProfilerDisable(&disable);
  if (r == CUPTI_SUCCESS) object_ = nullptr;
  return r;
}

CUptiResult RangeProfiler::InitCounterData(const std::vector<std::string>& metrics,
                                           size_t max_ranges, const char** failed_call) {
  std::vector<const char*> names;
  for (const auto& m : metrics) names.push_back(m.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size = {
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = object_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges);
  CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&size);
  if (r != CUPTI_SUCCESS) {
    *failed_call = "cuptiRangeProfilerGetCounterDataSize";
    return r;
  }
  // Neither zero-filled again when re-initialized nor when grown (UninitializedBuffer):
  // CUPTI initializes the image itself, and a fill would add a fraction of a second to
  // each re-initialization of a large image (docs/validation.md, "Facts the code
  // relies on").
  if (!counter_data_.Resize(size.counterDataSize)) {
    *failed_call = "allocating the counter data image";
    return CUPTI_ERROR_OUT_OF_MEMORY;
  }
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = object_;
  init.counterDataSize = counter_data_.size();
  init.pCounterData = counter_data_.data();
  r = cuptiRangeProfilerCounterDataImageInitialize(&init);
  if (r != CUPTI_SUCCESS) *failed_call = "cuptiRangeProfilerCounterDataImageInitialize";
  return r;
}

CUptiResult RangeProfiler::SetConfig(const std::vector<uint8_t>& image, bool user_range,
                                     bool user_replay, size_t max_ranges, size_t pass,
                                     size_t level) {
  CUpti_RangeProfiler_SetConfig_Params p = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  p.configSize = image.size();
  p.pConfig = image.data();
  p.counterDataImageSize = counter_data_.size();
  p.pCounterDataImage = counter_data_.data();
  p.range = user_range ? CUPTI_UserRange : CUPTI_AutoRange;
  p.replayMode = user_replay ? CUPTI_UserReplay : CUPTI_KernelReplay;
  p.maxRangesPerPass = max_ranges;
  p.numNestingLevels = 1;
  p.minNestingLevel = 1;
  p.passIndex = pass;
  p.targetNestingLevel = static_cast<uint16_t>(level);
  return cuptiRangeProfilerSetConfig(&p);
}

CUptiResult RangeProfiler::Start() {
  CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = object_;
  return cuptiRangeProfilerStart(&start);
}

RangeProfiler::StopResult RangeProfiler::Stop() {
  CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = object_;
  StopResult out;
  out.result = cuptiRangeProfilerStop(&stop);
  out.pass_index = stop.passIndex;
  out.target_level = stop.targetNestingLevel;
  out.all_passes_submitted = stop.isAllPassSubmitted;
  return out;
}

CUptiResult RangeProfiler::PushRange(const char* name) {
  CUpti_RangeProfiler_PushRange_Params push = {CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
  push.pRangeProfilerObject = object_;
  push.pRangeName = name;
  return cuptiRangeProfilerPushRange(&push);
}

CUptiResult RangeProfiler::PopRange() {
  CUpti_RangeProfiler_PopRange_Params pop = {CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
  pop.pRangeProfilerObject = object_;
  return cuptiRangeProfilerPopRange(&pop);
}

RangeProfiler::DecodeResult RangeProfiler::Decode() {
  CUpti_RangeProfiler_DecodeData_Params decode = {
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = object_;
  DecodeResult out;
  out.result = cuptiRangeProfilerDecodeData(&decode);
  out.ranges_dropped = decode.numOfRangeDropped;
  return out;
}

size_t RangeProfiler::DecodedRanges() {
  CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  cuptiRangeProfilerGetCounterDataInfo(&info);
  return info.numTotalRanges;
}

}  // namespace cuscope::collect
