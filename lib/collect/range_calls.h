// The Range Profiler of one context, as the pure drivers of user-replay sets use it
// (rotate_driver.h, sweep_driver.h): the strategies implement it with CUPTI
// (ProfilerCalls, profiler_calls.h), the unit tests with a simulation
// (tests/unit/rotate_sim.h).
#ifndef CUSCOPE_LIB_COLLECT_RANGE_CALLS_H_
#define CUSCOPE_LIB_COLLECT_RANGE_CALLS_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "lib/collect/planner.h"

namespace cuscope::collect {

class RangeCalls {
 public:
  struct Stopped {
    bool ok = false;
    bool all_passes_submitted = false;
  };
  virtual ~RangeCalls() = default;
  // Begins a pass (cuptiRangeProfilerStart). False: the context failed.
  virtual bool Start() = 0;
  virtual Stopped Stop() = 0;
  // All passes submitted: decodes; the ranges decoded, or nothing when decoding failed.
  virtual std::optional<size_t> Decode() = 0;
  // Range `range` is complete and wanted: evaluates and keeps it. False: its values
  // did not evaluate.
  virtual bool Keep(size_t range, RangeMatch& match) = 0;
  // Before a set of at most `ranges` ranges a pass: room for them in the counter data
  // (image_ranges.h) and the configuration for its first pass. False: the context failed.
  virtual bool Prepare(size_t ranges) = 0;
  // The set is over (`decoded`: its ranges were read; else the counter data is unknown).
  virtual void Finished(bool decoded) = 0;
  // A launch ran inside a window (its timing is not representative).
  virtual void Measured(const Launch& launch) = 0;
  // A set begins (before its first pass starts) or ends (decoded, cut or dropped), or
  // a gap between its passes ends or begins: with instruction counters, kernel records
  // are held off in between (while windows may run).
  virtual void SetInProgress(bool in_set) = 0;
  // The wall clock, asked only with a time budget (Planner::budget).
  virtual uint64_t NowNs() = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_RANGE_CALLS_H_
