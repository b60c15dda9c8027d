// Rotate (user replay): one multi-pass configuration per context; successive windows
// of launches of one kernel signature are the passes of a set. No replay, no memory
// save/restore. When sets begin and end, and how long their windows are, is the
// rotate driver's (rotate_driver.h); this strategy makes the Range Profiler calls it
// asks for, around the launches. With instruction counters, kernel records are held
// off while a set runs (kernel_hold.h) and the launches measured get records made
// from their callbacks (held_launches.h). An NCCL kernel or a launch made during
// stream capture is never measured: an open window ends before it (RotateDriver::Unsafe),
// as it does before a stream capture begins.
//
// Not thread-safe: every call is made under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_ROTATE_COUNTERS_H_
#define CUSCOPE_LIB_COLLECT_ROTATE_COUNTERS_H_

#include <cuda.h>

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "lib/collect/held_launches.h"
#include "lib/collect/kernel_hold.h"
#include "lib/collect/launch_counters.h"
#include "lib/collect/rotate_driver.h"

namespace cuscope::collect {

class RotateCounters final : public LaunchCounters {
 public:
  // `hold`: kernel records held off while sets run (instruction counters with kernel
  // tracing), or nullptr.
  RotateCounters(CounterRun& run, const RegionStack* regions, GpuKindControl* kinds,
                 IdleSignals& signals, KernelHold* hold)
      : LaunchCounters(run, regions, kinds, signals), hold_(hold) {}

  // The end of collection on a context: a set whose passes did not all run is dropped.
  void EndContext(ProfiledContext& c) override;

 private:
  // One context's sets.
  struct Rotated {
    ContextPlan plan;
    bool kernels_held = false;  // a set in progress holds kernel records off
    HeldLaunches made;          // records made at API_ENTER, until their API_EXIT
  };
  class Calls;  // the driver's RangeCalls on one context: ProfilerCalls, holding records

  void Enter(ProfiledContext& c, const EnteredLaunch& launch) override;
  // The driver ends a full window and opens the next one here, between launches: a
  // window started inside the launch's own API_ENTER callback misses instrumented
  // (SASS) counters.
  void Exit(const CUpti_CallbackData* cb) override;
  void Graph(const CUpti_CallbackData* cb) override;
  void CaptureBegins() override;
  // A set begins or ends on a context (RangeCalls::SetInProgress).
  void SetInProgress(Rotated& r, bool in_set);
  // A made record goes to the outbox if its launch succeeded.
  void QueueHeldLaunch(Rotated& r, const CUpti_CallbackData* cb);
  // LaunchSwitch::Plans.
  bool AnySetInProgress() const override;
  void ForgetWanted() override;
  void Resumed() override;

  KernelHold* const hold_;
  absl::flat_hash_map<CUcontext, Rotated> contexts_;
  // Records made from launches and not queued: the queue was full (no drain came).
  uint64_t made_dropped_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_ROTATE_COUNTERS_H_
