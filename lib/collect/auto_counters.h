// The launch strategy while the configuration's passes decide it (LaunchMode::kPending:
// --replay=auto or sweep without instrumented counters, ChooseLaunchMode): the passes
// are known once the first wanted launch's context is set up (CounterRun::Metrics).
// Until then launches go by as unmeasured launches do; at that launch the strategy the
// planner's mode names is made and measures it, and the sampler puts it in this one's
// place (TakeSuccessor). A refused mode (--replay=sweep on a configuration the sweep
// cannot measure) sets no context up: nothing is measured, and this strategy stays.
//
// Not thread-safe: every call is made under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_AUTO_COUNTERS_H_
#define CUSCOPE_LIB_COLLECT_AUTO_COUNTERS_H_

#include <functional>
#include <memory>

#include "lib/collect/launch_counters.h"
#include "lib/collect/planner.h"

namespace cuscope::collect {

class AutoCounters final : public LaunchCounters {
 public:
  // The strategy of a decided mode (kKernelReplay, kRotate, kSweep).
  using Make = std::function<std::unique_ptr<LaunchCounters>(LaunchMode)>;

  AutoCounters(CounterRun& run, const RegionStack* regions, GpuKindControl* kinds,
               IdleSignals& signals, Make make)
      : LaunchCounters(run, regions, kinds, signals), make_(std::move(make)) {}

  std::unique_ptr<CounterStrategy> TakeSuccessor() override { return std::move(next_); }

 private:
  void Enter(ProfiledContext& c, const EnteredLaunch& launch) override;
  void Exit(const CUpti_CallbackData* cb) override {}
  // LaunchSwitch::Plans: nothing is measured here.
  bool AnySetInProgress() const override { return false; }
  void ForgetWanted() override {}
  void Resumed() override {}

  Make make_;
  std::unique_ptr<LaunchCounters> next_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_AUTO_COUNTERS_H_
