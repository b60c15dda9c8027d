// Rotate's sets on one context, driven from the launch callbacks: when a set starts,
// how long its windows (passes) are, when a pass ends and the next begins, and how a
// finished set becomes samples. Pure: the Range Profiler calls go through RangeCalls
// (range_calls.h), which rotate's strategy implements with CUPTI (ProfilerCalls,
// profiler_calls.h) and the unit tests with a simulation, so the tests run the
// sequence of calls the GPU sees.
//
// A set starts at a launch's exit (between launches: a window opened inside a launch's
// own API_ENTER misses instrumented counters, docs/validation.md, "Facts the code
// relies on") when that launch was wanted (filters, launch_skip/count, per-signature
// budget). Its windows hold W = m x L launches, L the period of the context's launch
// sequence (launch_period.h), m doubling after each clean set while W stays within 32
// launches or one period (and the window limit). The window that fills at a launch's
// exit is closed and the next opened at once, so pass k+1 starts exactly W launches
// after pass k and range i of every pass is the same launch of the step. Without a
// period (warm-up), runs of one signature use L = 1 when most recent launches repeat
// the one before (the demo pattern AAAA BBBB).
//
// With a time budget (CounterOptions::rotate_budget_pct, set_budget.h), a set begins
// only while the budget allows it, and each public call ends by charging the set that
// ended in it (its decoding included): every launch of a window is still measured, at
// a bounded share of the loop's time. Its windows hold at most kBudgetWindow launches
// of a longer period: pass k+1 still starts one period (the stride) after pass k, the
// launches between (a gap) are not measured and keep their kernel records, so a set
// costs about the same every time (the budget's guess of the next holds) and sets
// spread over the loop; a window begins at a launch whose signature has the fewest
// samples of the period's, so that successive sets cover the step.
//
// A launch that is not the one the period predicts (the id L launches earlier) costs
// its own range (a mismatch at decoding). When L = 1, or at the second such launch in
// a row (the sequence shifted), the set is cut short: the open window ends before
// the launch, the remaining passes are submitted empty, and the set is decoded (ranges
// not seen by every pass are dropped). A graph launch (its kernels are not seen one by
// one) cuts the set the same way, and so does a launch that must not be measured (an
// NCCL kernel, a launch during stream capture) when it would fall inside a window.
// Every launch inside a window is a range; a launch that was not wanted is measured but
// its range's sample is not kept.
#ifndef CUSCOPE_LIB_COLLECT_ROTATE_DRIVER_H_
#define CUSCOPE_LIB_COLLECT_ROTATE_DRIVER_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "lib/collect/planner.h"
#include "lib/collect/range_calls.h"

namespace cuscope::collect {

class RotateDriver {
 public:
  RotateDriver(Planner& planner, RangeCalls& calls) : planner_(planner), calls_(calls) {}

  // A kernel launch's API_ENTER (`launch.wanted`: the planner's WantSample).
  void Enter(ContextPlan& c, const Launch& launch);
  // Its API_EXIT: ends a full window, opens the next pass or a new set.
  void Exit(ContextPlan& c);
  // A graph launch's API_ENTER.
  void Graph(ContextPlan& c);
  // The API_ENTER of a launch that must not be measured (an NCCL kernel, a launch during
  // stream capture), before Enter (with `wanted` false): an open window ends before it
  // and the set is cut (DropReason::kUnsafe).
  void Unsafe(ContextPlan& c);
  // The end of collection: closes the window; a set whose passes did not all run is dropped.
  void End(ContextPlan& c);
  // The launch callbacks were off and are back (CounterSampler::Tick; off only while
  // no set is in progress): launches went by unseen, so the history's last launches
  // are not the ones before the next. The history starts again, and no set begins
  // before two periods of the last set's have gone by.
  static void Resumed(ContextPlan& c);

  // History kept per context: enough for periods up to the window limit.
  static size_t HistoryFor(size_t window_limit) { return 4 * window_limit + 64; }
  // Windows stop doubling at this many launches (or one period, if longer).
  static constexpr size_t kGrowTo = 32;
  // After a set with no complete range, launches before the next set: from the first
  // wait, doubling to the last (ContextPlan::start_after).
  static constexpr size_t kFailuresBeforeBackoff = 3;
  static constexpr size_t kFirstBackoff = 32;
  static constexpr size_t kMaxBackoff = 512;
  // After a set skipped for a run too short (RunTooShort), launches before the next
  // try, at most.
  static constexpr size_t kSkipPause = 16;
  // Kernels whose short runs are remembered (ContextPlan::short_single_runs), at most.
  static constexpr size_t kMaxShortSingleRuns = 1024;
  // With a time budget, launches in a window of a longer period, at most: a set then
  // costs about a second with roofline's 7 passes (docs/validation.md, "Facts the
  // code relies on"), short enough to spread over the loop.
  static constexpr size_t kBudgetWindow = 64;
  // Signatures remembered as unwanted (ContextPlan::unwanted_ids), at most.
  static constexpr size_t kMaxUnwantedIds = 4096;

 private:
  // Charges the budget for a set that ended in the call it is made in, as it returns.
  class SettleOnReturn {
   public:
    SettleOnReturn(RotateDriver& d, ContextPlan& c) : d_(d), c_(c) {}
    ~SettleOnReturn();
    SettleOnReturn(const SettleOnReturn&) = delete;
    SettleOnReturn& operator=(const SettleOnReturn&) = delete;

   private:
    RotateDriver& d_;
    ContextPlan& c_;
  };
  // A set that ended (ContextPlan::set_ended) is charged up to `now_ns`.
  void ChargeEnded(ContextPlan& c, uint64_t now_ns);
  void StartSet(ContextPlan& c);
  size_t ChoosePeriod(ContextPlan& c);
  bool NeedsSamples(const ContextPlan& c, size_t period) const;
  // Launches of the current run of `period`, back from the last.
  static size_t CurrentRun(const ContextPlan& c, size_t period);
  // A bounded number of samples per signature (per_signature > 0): a set on a period
  // begins only once the period's current run has lasted as long as the set would
  // (passes x window launches), the run so far being the best guess of what remains.
  // A loop of a model's layers in the first step (6 layers of GPT-2 hold fewer windows
  // than 7 or 9 passes), or a run of one kernel shorter than 2P launches, is then not
  // measured for nothing, and the first step runs near the traced speed; the set on
  // the step's period begins after P steps instead of 2. Every launch measured
  // (per_signature = 0): sets begin after two periods, as any launch they measure is
  // wanted.
  bool RunNotYetLongEnough(ContextPlan& c, size_t period, size_t window);
  // The set in progress is cut because the sequence left its period: if the run was
  // too short for the set's passes, remember it (ContextPlan::short_runs, or for a
  // run of one kernel with a budget ContextPlan::short_single_runs).
  void RememberShortRun(ContextPlan& c);
  // A set on `period` with windows of `window` launches would outlast the current run,
  // judged by the longest run of that period (or, period 1, of that signature) that
  // ended too short before: the launches to wait before asking again (0: not short).
  size_t RunTooShort(const ContextPlan& c, size_t period, size_t window) const;
  bool OpenPass(ContextPlan& c);
  // Stops the open window; decodes when every pass was submitted. False: failed.
  bool ClosePass(ContextPlan& c, DropReason missing);
  // Cuts the set short: the remaining passes are submitted empty, then decoded.
  void CutSet(ContextPlan& c, DropReason why);
  void FinishSet(ContextPlan& c, DropReason missing);
  // The one place a set begins or ends (RangeCalls::SetInProgress follows it).
  void SetInSet(ContextPlan& c, bool in_set);
  // Kernel records held off (RangeCalls::SetInProgress): from a set's beginning to its
  // end, except in its gaps.
  void Hold(ContextPlan& c, bool hold);
  // With a budget's short windows on `period`: whether the next launch (as the period
  // predicts) has the fewest samples of the period's wanted signatures.
  bool WindowBeginsAtFewest(ContextPlan& c, size_t period);
  // After a set: the wait before the next one (none if it completed a range).
  void Backoff(ContextPlan& c, bool productive);

  Planner& planner_;
  RangeCalls& calls_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_ROTATE_DRIVER_H_
