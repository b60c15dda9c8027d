// The sweep's windows on one context, driven from the launch callbacks. The sweep
// measures a configuration of one pass (ChooseLaunchMode, planner.h) in user replay
// with auto range: each window (one Range Profiler Start..Stop) is a complete set by
// itself, one range per launch, so it needs no period and no matching of ranges across
// passes. Pure: the Range Profiler calls go through RangeCalls (range_calls.h), which
// the sweep's strategy implements with CUPTI (sweep_counters.h) and the unit tests with
// rotate's simulation (tests/unit/rotate_sim.h).
//
// The contract, per context:
// - A window opens at the API_ENTER of a wanted launch (Planner::WantSample: filters,
//   launch_skip/count, per-signature budget), so that launch is its first range.
//   Opening inside API_ENTER misses only instrumented (SASS) counters, which the sweep
//   never measures (NeedsInstrumentedCounters).
// - Every later launch on the context while the window is open is a range: the wanted
//   ones are kept, and the extra ones (Launch::extra: they passed the filters, only
//   their signature's budget was spent) as further samples that count toward no
//   budget and keep no window open (CounterStats::extra_kept); the others are measured
//   but not kept (CounterStats::not_kept).
// - The window closes at a launch's API_EXIT once it holds WindowCap() launches, or
//   once kSweepIdleClose launches in a row added no sample (not wanted, or of a signature
//   whose budget the samples and the window's wanted launches already fill). It closes
//   before a launch that must not be measured (an NCCL kernel, a launch during stream
//   capture: that launch never opens one either), before a graph launch (its kernels
//   are not seen one by one), before a stream capture begins (ending a window waits
//   for the GPU, which a capture may forbid), and at the end of collection.
// - Closing: Stop, then Decode. If the ranges decoded equal the window's launches, each
//   wanted range is evaluated and kept (Planner::SetComplete); else the window's wanted
//   launches are dropped (DropReason::kNotDecoded): which range is which launch is
//   never guessed.
// - Back-off: a window that kept no sample is unproductive. After kFailuresBeforeBackoff
//   of them in a row, no window opens during the next `backoff` launches on the context
//   (from kFirstBackoff, doubling after each unproductive window, to kMaxBackoff); a
//   window that keeps a sample ends the waits. The planner's stats count the windows,
//   the unproductive ones, the back-offs and the wanted launches they passed
//   (Planner::Describe, the run notes).
#ifndef CUSCOPE_LIB_COLLECT_SWEEP_DRIVER_H_
#define CUSCOPE_LIB_COLLECT_SWEEP_DRIVER_H_

#include <cstddef>
#include <cstdint>

#include "lib/collect/planner.h"
#include "lib/collect/range_calls.h"

namespace cuscope::collect {

class SweepDriver {
 public:
  SweepDriver(Planner& planner, RangeCalls& calls) : planner_(planner), calls_(calls) {}

  // A kernel launch's API_ENTER (`launch.wanted`: the planner's WantSample). `excluded`:
  // it must not be measured (an NCCL kernel, a launch during stream capture).
  void Enter(ContextPlan& c, const Launch& launch, bool excluded = false);
  // Its API_EXIT: a full or idle window closes.
  void Exit(ContextPlan& c);
  // An open window closes now: at a graph launch's API_ENTER, before a stream capture
  // begins, at the end of collection (its launches were made: it is decoded).
  void Cut(ContextPlan& c);

  // Launches in a window at most: kSweepWindow, within the window limit (the counter image).
  size_t WindowCap() const;

  // A window's ranges at most. Its image is prepared for this many (image_ranges.h).
  static constexpr size_t kSweepWindow = 256;
  // Launches in a row that add no sample before an open window closes: what opening a
  // window again costs, in ranges (docs/counters.md, "Collection": a window costs about
  // as much to open and close as 24 launches measured inside it).
  static constexpr size_t kSweepIdleClose = 24;
  // Unproductive windows in a row before the first wait; the waits, in launches.
  static constexpr size_t kFailuresBeforeBackoff = 3;
  static constexpr size_t kFirstBackoff = 64;
  static constexpr size_t kMaxBackoff = 8192;

 private:
  bool Open(ContextPlan& c);
  // `id`: the launch's signature (Planner::Intern).
  void Add(ContextPlan& c, const Launch& launch, uint32_t id);
  // Whether a wanted launch of `id` (Planner::Intern) adds a sample: its signature's
  // samples and the window's wanted launches of it are below the budget.
  bool AddsSample(const ContextPlan& c, const Signature& sig, uint32_t id) const;
  void Close(ContextPlan& c);
  // The decoded window's wanted and extra ranges kept; whether a wanted one was.
  bool Keep(ContextPlan& c, size_t ranges);
  void DropWanted(const ContextPlan& c);
  void Backoff(ContextPlan& c, bool productive);

  Planner& planner_;
  RangeCalls& calls_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_SWEEP_DRIVER_H_
