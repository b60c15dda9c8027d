#include "lib/collect/gpu_kinds.h"

#include "absl/strings/str_format.h"

namespace cuscope::collect {
namespace {

// Paused: the GPU-side kinds. NVTX ranges and API calls stay recorded: ranges so
// that every region instance shows, API calls so that captured kernels can be
// attributed to their regions (per-call API records re-enabled from inside an NVTX
// callback stayed off: captured kernels could not be attributed).
bool Pausable(CUpti_ActivityKind k) {
  return k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || k == CUPTI_ACTIVITY_KIND_MEMCPY ||
         k == CUPTI_ACTIVITY_KIND_MEMSET || k == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ||
         k == CUPTI_ACTIVITY_KIND_CUDA_EVENT || k == CUPTI_ACTIVITY_KIND_OVERHEAD;
}

}  // namespace

absl::Status GpuKindSwitch::Enable(const std::vector<CUpti_ActivityKind>& kinds,
                                   bool with_cuda_events) {
  absl::MutexLock lock(&mu_);
  capture_paused_ = false;
  counters_hold_ = false;
  gpu_kinds_on_ = true;
  kernels_disabled_ = false;
  kernels_held_off_.store(false);
  enabled_.clear();
  for (CUpti_ActivityKind k : kinds) {
    CUptiResult r = cuptiActivityEnable(k);
    if (r != CUPTI_SUCCESS) {
      for (CUpti_ActivityKind e : enabled_) cuptiActivityDisable(e);
      enabled_.clear();
      const char* s = nullptr;
      cuptiGetResultString(r, &s);
      return absl::InternalError(
          absl::StrFormat("cuptiActivityEnable(kind %d) failed: %s", k, s ? s : "unknown error"));
    }
    enabled_.push_back(k);
  }
  // Which cudaEventRecord each event wait waited for (SyncRecord::event_sync_id): a
  // refinement, so a CUPTI that refuses it costs the link, not the run.
  if (with_cuda_events && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT) == CUPTI_SUCCESS) {
    enabled_.push_back(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
  }
  return absl::OkStatus();
}

void GpuKindSwitch::DisableAll() {
  absl::MutexLock lock(&mu_);
  for (CUpti_ActivityKind k : enabled_) cuptiActivityDisable(k);
  enabled_.clear();
  kernels_disabled_ = false;
  kernels_held_off_.store(false);  // no records to make: none would be drained
}

void GpuKindSwitch::Pause(bool paused) {
  absl::MutexLock lock(&mu_);
  capture_paused_ = paused;
  Apply();
}

void GpuKindSwitch::Hold(bool hold) {
  absl::MutexLock lock(&mu_);
  counters_hold_ = hold;
  Apply();
}

void GpuKindSwitch::Apply() {
  const bool on = !capture_paused_ && !counters_hold_;
  if (on != gpu_kinds_on_) {
    gpu_kinds_on_ = on;
    kernels_disabled_ = false;
    for (CUpti_ActivityKind k : enabled_) {
      if (!Pausable(k)) continue;
      if (on) {
        cuptiActivityEnable(k);
      } else if (cuptiActivityDisable(k) == CUPTI_SUCCESS &&
                 k == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        kernels_disabled_ = true;
      }
    }
  }
  kernels_held_off_.store(kernels_disabled_ && counters_hold_ && !capture_paused_);
}

}  // namespace cuscope::collect
