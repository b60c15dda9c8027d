// Rotate with instruction counters: GPU records off while any context's set runs
// (instruction counters read 0 under user replay while kernels are traced). The hold
// is taken under the session lock (before a set's first pass: the switch, a CUPTI
// call per GPU kind, must not fall in a window) and released after the callback lets
// go of the session lock (Release), so a set that ends and the next that begins in one
// callback switch nothing.
//
// Kept for the whole process (a callback may release after the session lock is let
// go); Reset at each session's start. Lock order: the session lock, this one, the
// tracer's.
#ifndef CUSCOPE_LIB_COLLECT_KERNEL_HOLD_H_
#define CUSCOPE_LIB_COLLECT_KERNEL_HOLD_H_

#include <atomic>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/interfaces.h"

namespace cuscope::collect {

class KernelHold {
 public:
  explicit KernelHold(GpuKindControl* kinds) : kinds_(kinds) {}

  // A new session (the tracer's Start released its hold).
  void Reset() ABSL_LOCKS_EXCLUDED(mu_);
  // A set begins (holds at the first) or ends (the last makes a release pending).
  void SetInProgress(bool in_set) ABSL_LOCKS_EXCLUDED(mu_);
  // Gives the GPU kinds back if a release is pending and no set began meanwhile. Called
  // without the session lock.
  void Release() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  GpuKindControl* const kinds_;
  absl::Mutex mu_;
  int sets_holding_ ABSL_GUARDED_BY(mu_) = 0;
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> release_pending_{false};
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_KERNEL_HOLD_H_
