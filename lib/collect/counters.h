// Per-kernel hardware counters with the CUPTI Range Profiler, attributed to launches
// from the launch callbacks: the counters part of the collector (collector.h). It
// owns what lasts the whole process and, for each session, the objects made fresh at
// Start:
//
//   CounterSampler (this file: the session lock, Start/Stop, the callbacks' entry)
//   |- per process: ProfilerContexts (each CUDA context's Range Profiler, image and
//   |    configuration, shared by every strategy), CounterOutbox (finished sets, made
//   |    records and held spans, drained by CUPTI's buffer thread), MeasuredTable
//   |    (measured launches, asked by the converter), KernelHold (rotate's hold of the
//   |    GPU kinds), IdleSignals (the idle switch's lock-free side)
//   |- per session: CounterRun (settings, planner, notes, metric configuration) and one
//        CounterStrategy (counter_strategy.h): KernelReplay, RotateCounters,
//        SweepCounters or RegionCounters, with their own per-context state (or
//        AutoCounters until the configuration's passes choose one)
//
// Which launches become sets is the planner's (planner.h). Problems (not permitted,
// busy, unsupported) are reported through notes, not failures: the trace goes on
// without counters.
//
// Lock order (each lock is only ever taken after those before it):
//   switch_mu_ -> mu_ (the session lock) -> KernelHold's -> the tracer's GpuKindSwitch
//   mu_ -> CounterOutbox's, MeasuredTable's, CallbackSubscription's, IdleSignals'
//   (leaves)
// KernelHold's is also taken without mu_ (Release, after a launch callback), and
// IdleSignals' without mu_ from CUPTI's buffer thread (KernelRecord). CUPTI's buffer
// thread never takes mu_ (Drain, Classify and KernelRecord take only leaf locks).
#ifndef CUSCOPE_LIB_COLLECT_COUNTERS_H_
#define CUSCOPE_LIB_COLLECT_COUNTERS_H_

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/callbacks.h"
#include "lib/collect/counter_outbox.h"
#include "lib/collect/counter_run.h"
#include "lib/collect/counter_strategy.h"
#include "lib/collect/idle_signals.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/kernel_hold.h"
#include "lib/collect/launch_counters.h"
#include "lib/collect/measured_table.h"
#include "lib/collect/options.h"
#include "lib/collect/profiler_contexts.h"
#include "lib/model/profile.h"
#include "lib/model/run_notes.h"

namespace cuscope::collect {

class CounterSampler final : public MeasuredLaunches, public DrainSource, public RegionObserver {
 public:
  // `kinds`: the tracer's GPU kinds (held off inside measured regions); `regions`:
  // the thread's region stack (counters limited to regions); `callbacks`: the
  // launch callbacks.
  CounterSampler(GpuKindControl* kinds, const RegionStack* regions, CallbackSubscription* callbacks)
      : kinds_(kinds), regions_(regions), callbacks_(callbacks), hold_(kinds) {}

  // A new session with fresh strategy objects: subscribes to launch callbacks (or, for
  // region counters, waits for regions).
  absl::Status Start(const CollectOptions& options) ABSL_LOCKS_EXCLUDED(switch_mu_, mu_);
  // Closes open windows, decodes what is complete, unsubscribes.
  void Stop() ABSL_LOCKS_EXCLUDED(switch_mu_, mu_);
  // Launch callbacks (from the collector's CUPTI callback).
  void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Region counters.
  void OnRegionPush(const std::vector<std::string>& stack) override ABSL_LOCKS_EXCLUDED(mu_);
  void OnRegionPop(const std::vector<std::string>& stack) override ABSL_LOCKS_EXCLUDED(mu_);
  Kind Classify(uint32_t correlation_id, const std::string& kernel_name) const override {
    return measured_.Classify(correlation_id, kernel_name);
  }
  // Idle launch callbacks (launch_switch.h). KernelRecord: CUPTI's buffer thread, a
  // leaf lock only. Tick: the session's background thread, after each periodic flush;
  // makes the switch.
  void KernelRecord(const std::string& kernel_name, const model::Dim3& grid,
                    const model::Dim3& block) override {
    signals_.KernelRecord(kernel_name, grid, block);
  }
  void Tick() ABSL_LOCKS_EXCLUDED(switch_mu_, mu_);
  // `hook` asks for a Tick soon (the session's background thread): called when the
  // launch callbacks' switch off becomes due. Set once, before the first Start.
  void SetTickHook(std::function<void()> hook) { signals_.SetDueHook(std::move(hook)); }
  // Moves finished counter sets and device metrics (peaks, clocks) into `batch`.
  void Drain(model::Profile* batch) override { outbox_.Drain(batch); }
  // What the run info should say about counters (the counters_* notes): the status
  // (why counters are missing, when they are), chip, passes, strategy, launches
  // measured, samples.
  model::RunNotes Notes() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void StopLocked() ABSL_LOCKS_EXCLUDED(mu_);
  void SwitchLaunchCallbacks(bool on) ABSL_EXCLUSIVE_LOCKS_REQUIRED(switch_mu_);
  // The session's strategy for `options`.
  std::unique_ptr<CounterStrategy> MakeStrategy(const CollectOptions& options, bool region_mode)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The launch strategy of a decided mode (nullptr for kPending, kRefused); `hold`:
  // rotate holds kernel records off while its sets run (instruction counters).
  std::unique_ptr<LaunchCounters> MakeLaunchStrategy(LaunchMode mode, KernelHold* hold)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  GpuKindControl* const kinds_;
  const RegionStack* const regions_;
  CallbackSubscription* const callbacks_;

  // Fast exits for callbacks while counters are off (and for NVTX pushes and pops
  // outside region counters); mu_ decides.
  std::atomic<bool> active_flag_{false};
  std::atomic<bool> region_mode_flag_{false};

  // Held across a switch of the launch callbacks (Tick) and by Start and Stop, so a
  // switch decided for one session never lands in the next. Taken before mu_: the
  // CUPTI call that switches is made outside mu_ (a launch callback in flight waits
  // on mu_, and CUPTI may wait on it).
  absl::Mutex switch_mu_ ABSL_ACQUIRED_BEFORE(mu_);

  // The session lock. Held across every call into the session's objects, and so across
  // Range Profiler calls made from the application's launch and region callbacks: a
  // context's profiler state (a window started or not) and the windows that describe
  // it must change together, and launches on other threads must not fall between
  // them. CUPTI's buffer thread never takes it, so what waits on it is other launches
  // and the session's Start/Stop/Tick.
  absl::Mutex mu_;
  bool active_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t session_ ABSL_GUARDED_BY(mu_) = 0;  // Starts so far
  ProfilerContexts contexts_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<CounterRun> run_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<CounterStrategy> strategy_ ABSL_GUARDED_BY(mu_);

  // Own leaf locks (see the lock order above).
  CounterOutbox outbox_;
  MeasuredTable measured_;
  KernelHold hold_;
  IdleSignals signals_;
  // Kernel replay: a measured launch ended; its buffer is flushed once the callback lets
  // go of mu_ (GpuKindControl::FlushAfterReplay).
  std::atomic<bool> flush_after_replay_{false};
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTERS_H_
