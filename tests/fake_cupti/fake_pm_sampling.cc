#include "tests/fake_cupti/fake_pm_sampling.h"

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

struct CUpti_Profiler_Host_Object {
  std::vector<std::string> metrics;
};
struct CUpti_PmSampling_Object {
  uint32_t device = 0;
  bool configured = false;
  bool sampling = false;
};

namespace {

struct Sample {
  uint64_t start, end, number;
};
constexpr size_t kHeader = 2 * sizeof(uint64_t);  // capacity, count

struct State {
  std::mutex mu;
  fake_pm::Calls calls;
  std::string chip = "GH100";
  std::set<std::string> refused;
  int per_pass = 6;
  uint64_t numbered = 0;
  std::map<uint32_t, std::unique_ptr<CUpti_PmSampling_Object>> objects;
  std::map<uint32_t, std::deque<Sample>> buffers;  // per device
  int fail_evaluations = 0;
  int stop_delay_ms = 0;
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
};
int g_subscriber;  // its address is the one subscriber handle
State& S() {
  static State* s = new State;
  return *s;
}

uint64_t Word(const uint8_t* image, size_t i) {
  uint64_t v;
  std::memcpy(&v, image + i * sizeof(uint64_t), sizeof v);
  return v;
}
void SetWord(uint8_t* image, size_t i, uint64_t v) {
  std::memcpy(image + i * sizeof(uint64_t), &v, sizeof v);
}

}  // namespace

namespace fake_pm {

Calls GetCalls() {
  std::lock_guard<std::mutex> lock(S().mu);
  return S().calls;
}
void SetChip(const std::string& chip) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().chip = chip;
}
void Refuse(const std::string& metric) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().refused.insert(metric);
}
void SetMetricsPerPass(int n) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().per_pass = n;
}
uint64_t Produce(uint32_t device, uint64_t n, uint64_t start_ns, uint64_t interval_ns) {
  std::lock_guard<std::mutex> lock(S().mu);
  auto it = S().objects.find(device);
  if (it == S().objects.end() || !it->second->sampling) return 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t start = start_ns + i * interval_ns;
    S().buffers[device].push_back({start, start + interval_ns, ++S().numbered});
  }
  S().calls.produced += n;
  return n;
}
void SetStopDelayMs(int ms) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().stop_delay_ms = ms;
}
void FailEvaluations(int n) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().fail_evaluations = n;
}
void ProduceBackwards(uint32_t device, uint64_t start_ns) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().buffers[device].push_back({start_ns, start_ns - 1, ++S().numbered});
  ++S().calls.produced;
}
bool Sampling(uint32_t device) {
  std::lock_guard<std::mutex> lock(S().mu);
  auto it = S().objects.find(device);
  return it != S().objects.end() && it->second->sampling;
}
bool ContextCreated(uint32_t device) {
  CUpti_CallbackFunc callback;
  void* userdata;
  {
    std::lock_guard<std::mutex> lock(S().mu);
    callback = S().callback;
    userdata = S().userdata;
  }
  if (callback == nullptr) return false;
  CUpti_ResourceData data{};
  data.context = reinterpret_cast<CUcontext>(uintptr_t{device} + 1);
  callback(userdata, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED, &data);
  return true;
}
void Reset(bool keep_objects) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().calls = {};
  S().chip = "GH100";
  S().refused.clear();
  S().per_pass = 6;
  S().numbered = 0;
  S().fail_evaluations = 0;
  S().stop_delay_ms = 0;
  if (!keep_objects) S().objects.clear();
  S().buffers.clear();
}

}  // namespace fake_pm

extern "C" {

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                    void* userdata) {
  if (subscriber == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard<std::mutex> lock(S().mu);
  S().callback = callback;
  S().userdata = userdata;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle) {
  std::lock_guard<std::mutex> lock(S().mu);
  S().callback = nullptr;
  S().userdata = nullptr;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                         CUpti_CallbackId) {
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) {
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (S().chip.empty()) return CUPTI_ERROR_NOT_SUPPORTED;
  p->pChipName = S().chip.c_str();
  return CUPTI_SUCCESS;
}
// Context handles in tests are device index + 1.
CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t* device) {
  if (context == nullptr) return CUPTI_ERROR_INVALID_CONTEXT;
  *device = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(context) - 1);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p) {
  if (p->profilerType != CUPTI_PROFILER_TYPE_PM_SAMPLING) return CUPTI_ERROR_NOT_SUPPORTED;
  p->pHostObject = new CUpti_Profiler_Host_Object;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params* p) {
  delete p->pHostObject;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI
cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p) {
  std::lock_guard<std::mutex> lock(S().mu);
  for (size_t i = 0; i < p->numMetrics; ++i) {
    if (S().refused.count(p->ppMetricNames[i]) != 0) return CUPTI_ERROR_INVALID_METRIC_NAME;
  }
  for (size_t i = 0; i < p->numMetrics; ++i)
    p->pHostObject->metrics.emplace_back(p->ppMetricNames[i]);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI
cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) {
  p->configImageSize = sizeof(uint64_t);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* p) {
  if (p->configImageSize < sizeof(uint64_t)) return CUPTI_ERROR_INVALID_PARAMETER;
  SetWord(p->pConfigImage, 0, p->pHostObject->metrics.size());
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p) {
  std::lock_guard<std::mutex> lock(S().mu);
  const uint64_t metrics = Word(p->pConfigImage, 0);
  p->numOfPasses = metrics > static_cast<uint64_t>(S().per_pass) ? 2 : 1;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI
cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) {
  {
    std::lock_guard<std::mutex> lock(S().mu);
    if (S().fail_evaluations > 0) {
      --S().fail_evaluations;
      return CUPTI_ERROR_UNKNOWN;
    }
  }
  const uint8_t* image = p->pCounterDataImage;
  if (p->rangeIndex >= Word(image, 1)) return CUPTI_ERROR_INVALID_PARAMETER;
  const uint64_t number = Word(image, 2 + 3 * p->rangeIndex + 2);
  for (size_t j = 0; j < p->numMetrics; ++j) p->pMetricValues[j] = double(number * 10 + j);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiPmSamplingEnable(CUpti_PmSampling_Enable_Params* p) {
  std::lock_guard<std::mutex> lock(S().mu);
  auto& object = S().objects[static_cast<uint32_t>(p->deviceIndex)];
  if (object != nullptr) return CUPTI_ERROR_INVALID_OPERATION;
  object.reset(new CUpti_PmSampling_Object);
  object->device = static_cast<uint32_t>(p->deviceIndex);
  p->pPmSamplingObject = object.get();
  ++S().calls.enables;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiPmSamplingDisable(CUpti_PmSampling_Disable_Params*) {
  std::lock_guard<std::mutex> lock(S().mu);
  ++S().calls.disables;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiPmSamplingSetConfig(CUpti_PmSampling_SetConfig_Params* p) {
  if (p->configSize < sizeof(uint64_t) || p->samplingInterval == 0) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  std::lock_guard<std::mutex> lock(S().mu);
  p->pPmSamplingObject->configured = true;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiPmSamplingStart(CUpti_PmSampling_Start_Params* p) {
  std::lock_guard<std::mutex> lock(S().mu);
  if (!p->pPmSamplingObject->configured) return CUPTI_ERROR_INVALID_OPERATION;
  p->pPmSamplingObject->sampling = true;
  ++S().calls.starts;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiPmSamplingStop(CUpti_PmSampling_Stop_Params* p) {
  int delay_ms = 0;
  {
    std::lock_guard<std::mutex> lock(S().mu);
    delay_ms = S().stop_delay_ms;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  std::lock_guard<std::mutex> lock(S().mu);
  if (!p->pPmSamplingObject->sampling) return CUPTI_ERROR_INVALID_OPERATION;
  p->pPmSamplingObject->sampling = false;
  ++S().calls.stops;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI
cuptiPmSamplingGetCounterDataSize(CUpti_PmSampling_GetCounterDataSize_Params* p) {
  p->counterDataSize = kHeader + size_t{p->maxSamples} * 3 * sizeof(uint64_t);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI
cuptiPmSamplingCounterDataImageInitialize(CUpti_PmSampling_CounterDataImage_Initialize_Params* p) {
  if (p->counterDataSize < kHeader) return CUPTI_ERROR_INVALID_PARAMETER;
  SetWord(p->pCounterData, 0, (p->counterDataSize - kHeader) / (3 * sizeof(uint64_t)));
  SetWord(p->pCounterData, 1, 0);
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI cuptiPmSamplingDecodeData(CUpti_PmSampling_DecodeData_Params* p) {
  std::lock_guard<std::mutex> lock(S().mu);
  ++S().calls.decodes;
  uint8_t* image = p->pCounterDataImage;
  const uint64_t capacity = Word(image, 0);
  uint64_t count = Word(image, 1);
  std::deque<Sample>& buffer = S().buffers[p->pPmSamplingObject->device];
  while (!buffer.empty() && count < capacity) {
    SetWord(image, 2 + 3 * count, buffer.front().start);
    SetWord(image, 2 + 3 * count + 1, buffer.front().end);
    SetWord(image, 2 + 3 * count + 2, buffer.front().number);
    buffer.pop_front();
    ++count;
  }
  SetWord(image, 1, count);
  p->decodeStopReason = buffer.empty() ? CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS
                                       : CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
  p->overflow = 0;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI
cuptiPmSamplingGetCounterDataInfo(CUpti_PmSampling_GetCounterDataInfo_Params* p) {
  const uint64_t count = Word(p->pCounterDataImage, 1);
  p->numTotalSamples = p->numPopulatedSamples = p->numCompletedSamples = count;
  return CUPTI_SUCCESS;
}
CUptiResult CUPTIAPI
cuptiPmSamplingCounterDataGetSampleInfo(CUpti_PmSampling_CounterData_GetSampleInfo_Params* p) {
  const uint8_t* image = p->pCounterDataImage;
  if (p->sampleIndex >= Word(image, 1)) return CUPTI_ERROR_INVALID_PARAMETER;
  p->startTimestamp = Word(image, 2 + 3 * p->sampleIndex);
  p->endTimestamp = Word(image, 2 + 3 * p->sampleIndex + 1);
  return CUPTI_SUCCESS;
}

}  // extern "C"
