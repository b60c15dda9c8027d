// The switch of the launch callbacks, for one session of a launch strategy. Two
// reasons turn them off, one at a time, each with its own way back:
//  - idle: with a bounded number of samples, once CounterOptions::idle_launches launches
//    in a row left nothing to measure and no set is in progress (the decisions are
//    idle_policy.h's), until a kernel record of a signature still to sample comes
//    (idle_signals.h): a training step's launch call then costs what it costs under
//    the trace alone;
//  - rotate's time budget (set_budget.h): off at a tick when the budget allows no set
//    for a while, back at the first tick once it allows one. Not while any context
//    has a set open (a context that stopped launching mid-set keeps them on).
// Decide says what a tick switches; CounterSampler makes the CUPTI calls.
//
// Not thread-safe: used under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_LAUNCH_SWITCH_H_
#define CUSCOPE_LIB_COLLECT_LAUNCH_SWITCH_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/collect/counter_run.h"
#include "lib/collect/counter_strategy.h"
#include "lib/collect/idle_policy.h"
#include "lib/collect/idle_signals.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/planner.h"

namespace cuscope::collect {

class LaunchSwitch {
 public:
  // The strategy's contexts, as the switch needs them.
  class Plans {
   public:
    virtual bool AnySetInProgress() const = 0;
    // No set begins at the exit of a launch still in its call (the callbacks go off).
    virtual void ForgetWanted() = 0;
    // Launches went by unseen (RotateDriver::Resumed on every context).
    virtual void Resumed() = 0;

   protected:
    ~Plans() = default;
  };

  LaunchSwitch(CounterRun& run, IdleSignals& signals, GpuKindControl* kinds);

  bool off() const { return idle_.off(); }          // off for idleness
  bool enabled() const { return idle_.enabled(); }  // idleness can switch them off
  // A launch seen at API_ENTER: `settled` (Planner::Settled), `busy` (a set in
  // progress on its context).
  void CountIdle(const Signature& sig, bool settled, bool busy);
  // A tick: off for idleness, back for a record, off or back for the budget.
  CounterStrategy::Switch Decide(Plans& plans);
  // counters.idle and counters.budget_idle: how often and how long they were off.
  void Note();

 private:
  // The launch sequence's period that the idle threshold waits out (IdlePolicy): rotate's,
  // whose windows need the signatures of a long step to come round; 0 for the other
  // strategies, which open a set at any launch still to measure.
  size_t IdlePeriod() const;
  bool GoIdle(Plans& plans);
  bool Wake(Plans& plans);
  bool BudgetOff(Plans& plans);
  bool BudgetOn(Plans& plans);

  CounterRun& run_;
  IdleSignals& signals_;
  GpuKindControl* const kinds_;
  IdlePolicy idle_;
  uint64_t idle_since_ns_ = 0;
  uint64_t idle_ns_ = 0;  // off in all, to the last time back on
  uint64_t idle_offs_ = 0, idle_ons_ = 0;
  uint64_t launches_before_idle_ = 0;    // seen when first off
  std::vector<std::string> woke_names_;  // for the note, the first few
  // Off for rotate's time budget. Exclusive with idle_ being off.
  bool budget_off_ = false;
  uint64_t budget_off_since_ns_ = 0;
  uint64_t budget_off_ns_ = 0, budget_offs_ = 0, budget_ons_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_LAUNCH_SWITCH_H_
