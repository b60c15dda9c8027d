#include "lib/collect/capture.h"

#include <generated_nvtx_meta.h>

namespace cuscope::collect {
namespace {

// Per thread: for each open NVTX/scope level, whether it opened capture, and the
// region's name.
thread_local std::vector<bool> t_stack;
thread_local std::vector<std::string> t_names;

const char* MessageOf(const nvtxEventAttributes_t* a) {
  if (a == nullptr || a->messageType != NVTX_MESSAGE_TYPE_ASCII) return "";
  return a->message.ascii ? a->message.ascii : "";
}

}  // namespace

void RegionTracker::Open() {
  if (open_) return;
  open_ = true;
  ++windows_;
  kinds_->ResumeGpuKinds();
}

void RegionTracker::Close() {
  if (!open_) return;
  open_ = false;
  kinds_->PauseGpuKinds();
}

void RegionTracker::Push(const char* name) {
  bool opens = false;
  // Only capture by region needs the lock, and only while instances remain to
  // capture (then the regex).
  if (mode_.load(std::memory_order_relaxed) == CaptureMode::kRange) {
    absl::MutexLock lock(&mu_);
    if (!open_ && range_ && (limit_ == 0 || instances_ < limit_) &&
        range_->Search(name ? name : "")) {
      ++instances_;
      Open();
      opens = true;
    }
  }
  t_stack.push_back(opens);
  t_names.emplace_back(name ? name : "");
  observer_->OnRegionPush(t_names);
}

void RegionTracker::Pop() {
  if (t_stack.empty()) return;
  observer_->OnRegionPop(t_names);
  bool opened = t_stack.back();
  t_stack.pop_back();
  if (!t_names.empty()) t_names.pop_back();
  if (!opened) return;
  absl::MutexLock lock(&mu_);
  Close();
}

void RegionTracker::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                               const void* data) {
  if (!active_.load(std::memory_order_relaxed)) return;
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
  bool start =
      (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
      (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  bool stop =
      (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
      (domain == CUPTI_CB_DOMAIN_DRIVER_API && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  if (mode_.load(std::memory_order_relaxed) != CaptureMode::kProfilerApi) return;
  absl::MutexLock lock(&mu_);
  if (start && cb->callbackSite == CUPTI_API_EXIT) Open();
  if (stop && cb->callbackSite == CUPTI_API_ENTER) Close();
}

absl::Status RegionTracker::Start(const CollectOptions& options) {
  const bool track_regions = options.tracks_regions();
  if (!options.needs_capture_control()) return absl::OkStatus();
  {
    absl::MutexLock lock(&mu_);
    mode_.store(options.capture.mode);
    range_.reset();
    if (!options.capture.range.empty()) {
      range_.emplace(model::Pattern::CompileOrNothing(options.capture.range));
    }
    limit_ = options.capture.count;
    instances_ = 0;
    windows_ = 0;
    open_ = false;
  }
  absl::Status st = callbacks_->Add(CallbackSubscription::kCapture);
  if (!st.ok()) return st;
  if (options.capture.mode == CaptureMode::kProfilerApi) {
    callbacks_
        ->Enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000)
        .IgnoreError();
    callbacks_->Enable(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000)
        .IgnoreError();
    callbacks_->Enable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart)
        .IgnoreError();
    callbacks_->Enable(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)
        .IgnoreError();
  }
  if (track_regions) {
    for (CUpti_CallbackId id : {CUPTI_CBID_NVTX_nvtxRangePushA, CUPTI_CBID_NVTX_nvtxRangePushEx,
                                CUPTI_CBID_NVTX_nvtxRangePop, CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
                                CUPTI_CBID_NVTX_nvtxDomainRangePop}) {
      callbacks_->Enable(CUPTI_CB_DOMAIN_NVTX, id).IgnoreError();
    }
  }
  active_.store(true);
  return absl::OkStatus();
}

void RegionTracker::Stop() {
  active_.store(false);
  callbacks_->Remove(CallbackSubscription::kCapture);
}

void RegionTracker::OnRangePush(const char* name) {
  if (active_.load(std::memory_order_relaxed)) Push(name);
}

void RegionTracker::OnRangePop() {
  if (active_.load(std::memory_order_relaxed)) Pop();
}

const std::vector<std::string>& RegionTracker::ThreadRegions() const { return t_names; }

uint64_t RegionTracker::WindowsOpened() {
  absl::MutexLock lock(&mu_);
  return windows_;
}

}  // namespace cuscope::collect
