#include "lib/collect/pm_device.h"

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/collect/cupti_result.h"

namespace cuscope::collect {
namespace {

absl::Status Failed(const char* call, CUptiResult r) {
  return absl::UnavailableError(absl::StrCat(call, " failed: ", CuptiResultString(r)));
}

void Release(CUpti_Profiler_Host_Object* host) {
  if (host == nullptr) return;
  CUpti_Profiler_Host_Deinitialize_Params p = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  p.pHostObject = host;
  cuptiProfilerHostDeinitialize(&p);
}

// A PM-sampling host object holding `metrics`, its configuration image and passes.
// On failure nothing is left to release.
struct HostConfig {
  CUpti_Profiler_Host_Object* host = nullptr;
  std::vector<uint8_t> image;
  size_t passes = 0;
};
CUptiResult MakeHostConfig(const std::string& chip, const std::vector<const char*>& metrics,
                           HostConfig* out) {
  CUpti_Profiler_Host_Initialize_Params hi = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  hi.pChipName = chip.c_str();
  CUptiResult r = cuptiProfilerHostInitialize(&hi);
  if (r != CUPTI_SUCCESS) return r;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = hi.pHostObject;
  add.ppMetricNames = const_cast<const char**>(metrics.data());
  add.numMetrics = metrics.size();
  r = cuptiProfilerHostConfigAddMetrics(&add);
  CUpti_Profiler_Host_GetConfigImageSize_Params size = {
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = hi.pHostObject;
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetConfigImageSize(&size);
  std::vector<uint8_t> image(r == CUPTI_SUCCESS ? size.configImageSize : 0);
  CUpti_Profiler_Host_GetConfigImage_Params get = {
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = hi.pHostObject;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetConfigImage(&get);
  CUpti_Profiler_Host_GetNumOfPasses_Params passes = {
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.configImageSize = image.size();
  passes.pConfigImage = image.data();
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetNumOfPasses(&passes);
  if (r != CUPTI_SUCCESS) {
    Release(hi.pHostObject);
    return r;
  }
  out->host = hi.pHostObject;
  out->image = std::move(image);
  out->passes = passes.numOfPasses;
  return CUPTI_SUCCESS;
}

}  // namespace

absl::StatusOr<PmDevice::Choice> PmDevice::ChooseMetrics(const std::string& chip,
                                                         const std::vector<std::string>& wanted) {
  Choice c;
  for (const std::string& m : wanted) {
    HostConfig one;
    const CUptiResult r = MakeHostConfig(chip, {m.c_str()}, &one);
    Release(one.host);
    if (r != CUPTI_SUCCESS) {
      c.left_out.push_back(
          absl::StrCat(m, " (not sampled on ", chip, ": ", CuptiResultString(r), ")"));
    } else if (one.passes != 1) {
      c.left_out.push_back(absl::StrCat(m, " (needs ", one.passes, " passes; sampling takes 1)"));
    } else {
      c.metrics.push_back(m);
    }
  }
  while (!c.metrics.empty()) {
    std::vector<const char*> names;
    for (const std::string& m : c.metrics) names.push_back(m.c_str());
    HostConfig all;
    const CUptiResult r = MakeHostConfig(chip, names, &all);
    Release(all.host);
    if (r == CUPTI_SUCCESS && all.passes == 1) break;
    c.left_out.push_back(
        absl::StrCat(c.metrics.back(), " (does not fit one pass with the others)"));
    c.metrics.pop_back();
  }
  if (c.metrics.empty()) {
    return absl::UnavailableError(
        absl::StrCat("none of the metrics to sample can be sampled on ", chip));
  }
  return c;
}

absl::StatusOr<std::unique_ptr<PmDevice>> PmDevice::Start(uint32_t index, const std::string& chip,
                                                          const std::vector<std::string>& metrics,
                                                          uint64_t interval_ns) {
  std::unique_ptr<PmDevice> d(new PmDevice(index, metrics));
  for (const std::string& m : d->metrics_) d->names_.push_back(m.c_str());
  HostConfig config;
  CUptiResult r = MakeHostConfig(chip, d->names_, &config);
  if (r != CUPTI_SUCCESS) return Failed("the sampling configuration", r);
  d->host_ = config.host;
  d->config_ = std::move(config.image);

  CUpti_PmSampling_Enable_Params en = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
  en.deviceIndex = index;
  r = cuptiPmSamplingEnable(&en);
  if (r != CUPTI_SUCCESS) return Failed("cuptiPmSamplingEnable", r);
  d->object_ = en.pPmSamplingObject;

  absl::Status configured = d->Configure(interval_ns);
  if (!configured.ok()) return configured;

  CUpti_PmSampling_GetCounterDataSize_Params ds = {
      CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
  ds.pPmSamplingObject = d->object_;
  ds.pMetricNames = d->names_.data();
  ds.numMetrics = d->names_.size();
  ds.maxSamples = kImageSamples;
  r = cuptiPmSamplingGetCounterDataSize(&ds);
  if (r != CUPTI_SUCCESS) return Failed("cuptiPmSamplingGetCounterDataSize", r);
  d->image_.assign(ds.counterDataSize, 0);
  CUpti_PmSampling_CounterDataImage_Initialize_Params ci = {
      CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  ci.pPmSamplingObject = d->object_;
  ci.counterDataSize = d->image_.size();
  ci.pCounterData = d->image_.data();
  r = cuptiPmSamplingCounterDataImageInitialize(&ci);
  if (r != CUPTI_SUCCESS) return Failed("cuptiPmSamplingCounterDataImageInitialize", r);
  d->blank_ = d->image_;

  absl::Status started = d->StartSampling();
  if (!started.ok()) return started;
  return d;
}

absl::Status PmDevice::Configure(uint64_t interval_ns) {
  CUpti_PmSampling_SetConfig_Params sc = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
  sc.pPmSamplingObject = object_;
  sc.configSize = config_.size();
  sc.pConfig = config_.data();
  sc.hardwareBufferSize = kHardwareBufferBytes;
  sc.samplingInterval = interval_ns;
  sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  // Keep the latest: with the oldest kept, a full buffer fails every later decode
  // (CUPTI_ERROR_OUT_OF_MEMORY) and the run has no more samples.
  sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST;
  const CUptiResult r = cuptiPmSamplingSetConfig(&sc);
  return r == CUPTI_SUCCESS ? absl::OkStatus() : Failed("cuptiPmSamplingSetConfig", r);
}

absl::Status PmDevice::StartSampling() {
  CUpti_PmSampling_Start_Params st = {CUpti_PmSampling_Start_Params_STRUCT_SIZE};
  st.pPmSamplingObject = object_;
  if (cuptiGetTimestamp(&started_ns_) != CUPTI_SUCCESS) started_ns_ = 0;
  const CUptiResult r = cuptiPmSamplingStart(&st);
  if (r != CUPTI_SUCCESS) return Failed("cuptiPmSamplingStart", r);
  started_ = true;
  return absl::OkStatus();
}

absl::Status PmDevice::Resume(uint64_t interval_ns) {
  if (started_) return absl::OkStatus();
  image_ = blank_;
  absl::Status st = Configure(interval_ns);
  return st.ok() ? StartSampling() : st;
}

PmDevice::~PmDevice() {
  if (started_) Stop().IgnoreError();
  Release(host_);
}

absl::Status PmDevice::Stop() {
  if (!started_) return absl::OkStatus();
  started_ = false;
  uint64_t now = 0;
  if (started_ns_ != 0 && cuptiGetTimestamp(&now) == CUPTI_SUCCESS && now > started_ns_) {
    sampled_ns_ += now - started_ns_;
  }
  CUpti_PmSampling_Stop_Params sp = {CUpti_PmSampling_Stop_Params_STRUCT_SIZE};
  sp.pPmSamplingObject = object_;
  const CUptiResult r = cuptiPmSamplingStop(&sp);
  return r == CUPTI_SUCCESS ? absl::OkStatus() : Failed("cuptiPmSamplingStop", r);
}

absl::StatusOr<PmDevice::Decoded> PmDevice::Decode(size_t room, std::vector<model::GpuSample>* out,
                                                   const std::atomic<bool>& quit) {
  Decoded result;
  // An image holds kImageSamples: decode until the hardware buffer is empty or an image
  // comes back without a sample; while the GPU still samples, at most kMaxRounds images
  // (the buffer refills as it is read: this decode must end).
  const bool sampling = started_;
  for (int round = 0; !quit.load(); ++round) {
    if (sampling && round == kMaxRounds) {
      result.behind = true;
      break;
    }
    CUpti_PmSampling_DecodeData_Params dd = {CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE};
    dd.pPmSamplingObject = object_;
    dd.pCounterDataImage = image_.data();
    dd.counterDataImageSize = image_.size();
    CUptiResult r = cuptiPmSamplingDecodeData(&dd);
    ++result.rounds;
    if (r != CUPTI_SUCCESS) {
      image_ = blank_;
      return Failed("cuptiPmSamplingDecodeData", r);
    }
    result.overflow = result.overflow || dd.overflow != 0;
    result.stop_reason = static_cast<int>(dd.decodeStopReason);
    CUpti_PmSampling_GetCounterDataInfo_Params info = {
        CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = image_.data();
    info.counterDataImageSize = image_.size();
    r = cuptiPmSamplingGetCounterDataInfo(&info);
    if (r != CUPTI_SUCCESS) {
      image_ = blank_;
      return Failed("cuptiPmSamplingGetCounterDataInfo", r);
    }
    const size_t before = out->size();
    absl::Status read = ReadSamples(info.numCompletedSamples, room, out);
    if (!read.ok()) {
      out->resize(before);
      image_ = blank_;
      return read;
    }
    const size_t added = out->size() - before;
    if (added > 0) {
      if (result.first_ns == 0) result.first_ns = (*out)[before].start_ns;
      result.last_ns = out->back().end_ns;
    }
    result.samples += added;
    result.dropped += info.numCompletedSamples - added;
    room -= added;
    image_ = blank_;
    if (dd.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL ||
        info.numCompletedSamples == 0) {
      break;
    }
  }
  return result;
}

absl::Status PmDevice::ReadSamples(size_t completed, size_t room,
                                   std::vector<model::GpuSample>* out) {
  for (size_t i = 0; i < completed && i < room; ++i) {
    CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
        CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
    si.pPmSamplingObject = object_;
    si.pCounterDataImage = image_.data();
    si.counterDataImageSize = image_.size();
    si.sampleIndex = i;
    CUptiResult r = cuptiPmSamplingCounterDataGetSampleInfo(&si);
    if (r != CUPTI_SUCCESS) return Failed("cuptiPmSamplingCounterDataGetSampleInfo", r);
    model::GpuSample s;
    s.device_id = index_;
    s.start_ns = si.startTimestamp;
    s.end_ns = si.endTimestamp;
    s.values.assign(names_.size(), 0.0);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ev.pHostObject = host_;
    ev.pCounterDataImage = image_.data();
    ev.counterDataImageSize = image_.size();
    ev.rangeIndex = i;
    ev.ppMetricNames = names_.data();
    ev.numMetrics = names_.size();
    ev.pMetricValues = s.values.data();
    r = cuptiProfilerHostEvaluateToGpuValues(&ev);
    if (r != CUPTI_SUCCESS) return Failed("cuptiProfilerHostEvaluateToGpuValues", r);
    // The profile holds NaN or [0, 1e30] (lib/store/sample_rows.h): a value outside
    // is unknown, not a reason to lose the batch.
    for (double& v : s.values) {
      if (!(v >= 0 && v <= 1e30)) v = std::numeric_limits<double>::quiet_NaN();
    }
    out->push_back(std::move(s));
  }
  return absl::OkStatus();
}

}  // namespace cuscope::collect
