// The Range Profiler calls of the user-replay drivers (RangeCalls, range_calls.h:
// rotate_driver.h, sweep_driver.h) on one context, made with CUPTI under the session
// lock from the launch callbacks and Stop: a pass's Start and Stop, a set's
// preparation (counter_run.h), decoding and evaluation (counter_sets.h). Kernel records
// are not held off here: rotate, which holds them with instruction counters, overrides
// SetInProgress (rotate_counters.cc).
//
// Not thread-safe: used under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_PROFILER_CALLS_H_
#define CUSCOPE_LIB_COLLECT_PROFILER_CALLS_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "lib/collect/counter_run.h"
#include "lib/collect/counter_sets.h"
#include "lib/collect/planner.h"
#include "lib/collect/profiler_contexts.h"
#include "lib/collect/range_calls.h"

namespace cuscope::collect {

class ProfilerCalls : public RangeCalls {
 public:
  // `plan`: the context's windows (decoded from), and what the last Stop said comes
  // next (ContextPlan::next_pass, next_level). `window_kind`: what a window is in the
  // profile's own time (a rotate window, the sweep's).
  ProfilerCalls(CounterRun& run, CounterSets& sets, ProfiledContext& c, ContextPlan& plan,
                model::OwnKind window_kind)
      : run_(run), sets_(sets), c_(c), plan_(plan), window_kind_(window_kind) {}

  // cuptiRangeProfilerStart (after SetConfig for the pass, with the debugging switch
  // CounterOptions::setconfig_each_pass). False: the context failed (a note says why).
  bool Start() override;
  Stopped Stop() override;
  std::optional<size_t> Decode() override { return sets_.DecodeRanges(c_, plan_.windows); }
  bool Keep(size_t range, RangeMatch& match) override {
    return sets_.EvaluateSet(c_, range, match);
  }
  bool Prepare(size_t ranges) override { return run_.PrepareSet(c_, ranges); }
  void Finished(bool decoded) override;
  void Measured(const Launch& launch) override {
    run_.MarkMeasured(launch.correlation_id, launch.sig.name);
  }
  void SetInProgress(bool in_set) override {}
  uint64_t NowNs() override;

 private:
  CounterRun& run_;
  CounterSets& sets_;
  ProfiledContext& c_;
  ContextPlan& plan_;
  const model::OwnKind window_kind_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_PROFILER_CALLS_H_
