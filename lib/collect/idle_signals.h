// The lock-free side of the launch callbacks' idle switch (launch_switch.h): what the
// launch callbacks, CUPTI's buffer thread and the session's tick tell each other
// without the session lock. A kernel record of a signature still to sample (one not in
// the settled copy taken when the callbacks went off) makes the wake due; a run of
// settled launches makes the switch off due; a time budget makes every tick look.
//
// Kept for the whole process (the buffer thread may call in at any time); Reset at
// each session's start. Its lock is a leaf.
#ifndef CUSCOPE_LIB_COLLECT_IDLE_SIGNALS_H_
#define CUSCOPE_LIB_COLLECT_IDLE_SIGNALS_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/planner.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

class IdleSignals {
 public:
  // A new session; `budget_ticks`: a time budget, so every tick looks.
  void Reset(bool budget_ticks) ABSL_LOCKS_EXCLUDED(mu_);
  // CUPTI's buffer thread, for each kernel record (cheap unless the callbacks are off).
  void KernelRecord(const std::string& kernel_name, const model::Dim3& grid,
                    const model::Dim3& block) ABSL_LOCKS_EXCLUDED(mu_);
  // Whether a tick has anything to decide.
  bool Due() const { return idle_due_.load() || wake_due_.load() || budget_ticks_.load(); }
  // The callbacks are off for idleness (the flag KernelRecord looks at).
  bool off() const { return idle_flag_.load(); }
  // Records no longer reach cuscope: the callbacks come back at the next tick.
  void WakeNow() { wake_due_.store(true); }

  bool idle_due() const { return idle_due_.load(); }
  // Called (on the launching thread) when the switch off becomes due, so that the tick
  // that makes it comes now rather than at the next flush period. Set once, before
  // the first session starts (a plain member: never changed while launches run).
  void SetDueHook(std::function<void()> hook) { due_hook_ = std::move(hook); }
  // A run of settled launches reached the threshold.
  void MarkIdleDue() {
    if (idle_due_.load(std::memory_order_relaxed)) return;
    idle_due_.store(true);
    if (due_hook_) due_hook_();
  }
  void ClearIdleDue() { idle_due_.store(false); }
  bool wake_due() const { return wake_due_.load(); }
  // The callbacks go off: `settled` is what records are compared against from now on.
  void GoneOff(SettledSignatures settled) ABSL_LOCKS_EXCLUDED(mu_);
  // The callbacks come back: the signature whose record woke them (none: records
  // were taken by another client).
  std::optional<Signature> CameBack() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  std::atomic<bool> idle_due_{false};      // the run of settled launches reached the threshold
  std::atomic<bool> idle_flag_{false};     // off for idleness, for KernelRecord's fast exit
  std::atomic<bool> wake_due_{false};      // a record of a signature still to sample came
  std::atomic<bool> budget_ticks_{false};  // a time budget: Tick looks at it
  std::function<void()> due_hook_;         // SetDueHook
  // What KernelRecord compares against while the callbacks are off.
  absl::Mutex mu_;
  SettledSignatures settled_ ABSL_GUARDED_BY(mu_);
  std::optional<Signature> woken_by_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_IDLE_SIGNALS_H_
