// The sweep (user replay, one pass): a configuration of one pass measured in windows
// of consecutive launches, each window a complete set by itself. No replay, no memory
// save/restore, no period. When windows open and close is the sweep driver's
// (sweep_driver.h: its contract); this strategy makes the Range Profiler calls it asks
// for, around the launches (ProfilerCalls). An NCCL kernel or a launch made during
// stream capture is never measured: an open window closes before it, as it does before
// a graph launch and before a stream capture begins.
//
// Not thread-safe: every call is made under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_SWEEP_COUNTERS_H_
#define CUSCOPE_LIB_COLLECT_SWEEP_COUNTERS_H_

#include <cuda.h>

#include "absl/container/flat_hash_map.h"
#include "lib/collect/launch_counters.h"
#include "lib/collect/planner.h"
#include "lib/collect/sweep_driver.h"

namespace cuscope::collect {

class SweepCounters final : public LaunchCounters {
 public:
  using LaunchCounters::LaunchCounters;

  // The end of collection on a context: an open window closes and is decoded.
  void EndContext(ProfiledContext& c) override;

 private:
  void Enter(ProfiledContext& c, const EnteredLaunch& launch) override;
  void Exit(const CUpti_CallbackData* cb) override;
  void Graph(const CUpti_CallbackData* cb) override;
  void CaptureBegins() override;
  // LaunchSwitch::Plans.
  bool AnySetInProgress() const override;
  void ForgetWanted() override {}  // (windows open at API_ENTER)
  void Resumed() override {}

  // `step` of the sweep driver on the open window of `ctx`, if it has one and did not
  // fail.
  void OnOpenWindow(CUcontext ctx, void (SweepDriver::*step)(ContextPlan&));
  // The first back-off, as it begins: a line on stderr and the counters.backoff note
  // (replaced by the totals at the end).
  void NoteBackoff();

  absl::flat_hash_map<CUcontext, ContextPlan> contexts_;
  bool backoff_noted_ = false;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_SWEEP_COUNTERS_H_
