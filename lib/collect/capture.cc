#include "lib/collect/capture.h"

#include <cupti.h>
#include <generated_nvtx_meta.h>

#include <atomic>
#include <optional>
#include <regex>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "lib/collect/activity.h"
#include "lib/collect/callbacks.h"
#include "lib/collect/counters.h"

namespace cuscope::collect::capture {
namespace {

struct State {
  absl::Mutex mu;
  config::CaptureMode mode = config::CaptureMode::kAll;
  std::optional<std::regex> range;
  uint64_t limit = 0;      // instances to capture; 0 = all
  uint64_t instances = 0;  // matching instances seen
  uint64_t windows = 0;
  bool open = false;       // capturing now
};

State& S() {
  static State* s = new State();
  return *s;
}
std::atomic<bool> g_active{false};
thread_local std::vector<bool> t_stack;  // per NVTX/scope level: did it open capture?
thread_local std::vector<std::string> t_names;  // per level: the region's name

void Open(State& s) {
  if (s.open) return;
  s.open = true;
  ++s.windows;
  ActivityCollector::Resume();
}

void Close(State& s) {
  if (!s.open) return;
  s.open = false;
  ActivityCollector::Pause();
}

void Push(const char* name) {
  State& s = S();
  bool opens = false;
  // The mode is set before the callbacks are; only capture by region needs the lock,
  // and only while instances remain to capture (then the regex).
  if (s.mode == config::CaptureMode::kRange) {
    absl::MutexLock lock(&s.mu);
    if (!s.open && s.range && (s.limit == 0 || s.instances < s.limit) &&
        std::regex_search(name ? name : "", *s.range)) {
      ++s.instances;
      Open(s);
      opens = true;
    }
  }
  t_stack.push_back(opens);
  t_names.emplace_back(name ? name : "");
  counters::OnRegionPush(t_names);
}

void Pop() {
  if (t_stack.empty()) return;
  counters::OnRegionPop(t_names);
  bool opened = t_stack.back();
  t_stack.pop_back();
  if (!t_names.empty()) t_names.pop_back();
  if (!opened) return;
  State& s = S();
  absl::MutexLock lock(&s.mu);
  Close(s);
}

const char* MessageOf(const nvtxEventAttributes_t* a) {
  if (a == nullptr || a->messageType != NVTX_MESSAGE_TYPE_ASCII) return "";
  return a->message.ascii ? a->message.ascii : "";
}

void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (!g_active.load(std::memory_order_relaxed)) return;
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    const auto* d = static_cast<const CUpti_NvtxData*>(data);
    switch (cbid) {
      case CUPTI_CBID_NVTX_nvtxRangePushA:
        Push(static_cast<const nvtxRangePushA_params*>(d->functionParams)->message);
        break;
      case CUPTI_CBID_NVTX_nvtxRangePushEx:
        Push(MessageOf(static_cast<const nvtxRangePushEx_params*>(d->functionParams)->eventAttrib));
        break;
      case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
        Push(MessageOf(
            static_cast<const nvtxDomainRangePushEx_params*>(d->functionParams)->core.eventAttrib));
        break;
      case CUPTI_CBID_NVTX_nvtxRangePop:
      case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        Pop();
        break;
      default:
        break;
    }
    return;
  }
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  bool start = (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
                cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
               (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  bool stop = (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
              (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  State& s = S();
  if (s.mode != config::CaptureMode::kProfilerApi) return;
  absl::MutexLock lock(&s.mu);
  if (start && cb->callbackSite == CUPTI_API_EXIT) Open(s);
  if (stop && cb->callbackSite == CUPTI_API_ENTER) Close(s);
}

}  // namespace

absl::Status Start(const config::Config& config) {
  const bool track_regions = config.tracks_regions();
  if (!config.needs_capture_control()) return absl::OkStatus();
  State& s = S();
  {
    absl::MutexLock lock(&s.mu);
    s.mode = config.capture;
    s.range.reset();
    if (!config.capture_range.empty()) s.range.emplace(config.capture_range);
    s.limit = config.capture_count;
    s.instances = 0;
    s.windows = 0;
    s.open = false;
  }
  absl::Status st = callbacks::AddHandler(OnCallback);
  if (!st.ok()) return st;
  if (config.capture == config::CaptureMode::kProfilerApi) {
    callbacks::Enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000)
        .IgnoreError();
    callbacks::Enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000)
        .IgnoreError();
    callbacks::Enable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart)
        .IgnoreError();
    callbacks::Enable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)
        .IgnoreError();
  }
  if (track_regions) {
    for (CUpti_CallbackId id :
         {CUPTI_CBID_NVTX_nvtxRangePushA, CUPTI_CBID_NVTX_nvtxRangePushEx,
          CUPTI_CBID_NVTX_nvtxRangePop, CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
          CUPTI_CBID_NVTX_nvtxDomainRangePop}) {
      callbacks::Enable(CUPTI_CB_DOMAIN_NVTX, id).IgnoreError();
    }
  }
  g_active.store(true);
  return absl::OkStatus();
}

void Stop() {
  g_active.store(false);
  callbacks::RemoveHandler(OnCallback);
}

void OnRangePush(const char* name) {
  if (g_active.load(std::memory_order_relaxed)) Push(name);
}

void OnRangePop() {
  if (g_active.load(std::memory_order_relaxed)) Pop();
}

const std::vector<std::string>& ThreadRegions() { return t_names; }

uint64_t WindowsOpened() {
  State& s = S();
  absl::MutexLock lock(&s.mu);
  return s.windows;
}

}  // namespace cuscope::collect::capture
