// One counting session's shared state and the Range Profiler work every strategy
// does with it: the settings, the planner, the notes, the metric configuration, and
// on each context the setup, the counter data image and the configuration (made
// through ProfilerContexts, which owns the profilers). Made fresh at each
// CounterSampler::Start; the strategies of the session (counter_strategy.h) share it.
//
// Not thread-safe: used under CounterSampler's session lock (counters.h). The
// outbox and the measured-launch table it reaches take their own leaf locks.
#ifndef CUSCOPE_LIB_COLLECT_COUNTER_RUN_H_
#define CUSCOPE_LIB_COLLECT_COUNTER_RUN_H_

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "lib/collect/counter_metrics.h"
#include "lib/collect/counter_notes.h"
#include "lib/collect/counter_outbox.h"
#include "lib/collect/measured_table.h"
#include "lib/collect/options.h"
#include "lib/collect/planner.h"
#include "lib/collect/profiler_contexts.h"

namespace cuscope::collect {

class CounterRun final : public ContextSetup {
 public:
  // `start_ns`: MonotonicNs at the session's start. The planner measures region
  // instances (`region_mode`), or launches as ChooseLaunchMode says (planner.h): a
  // pending mode is decided by the passes at the first context's metric setup, and a
  // refused one sets no context up (the counters.status note says why).
  CounterRun(const CollectOptions& options, bool region_mode, uint64_t start_ns,
             ProfilerContexts& contexts, CounterOutbox& outbox, MeasuredTable& measured);

  const CollectOptions& options() const { return options_; }
  Planner& planner() { return planner_; }
  CounterStats& stats() { return planner_.stats(); }
  CounterNotes& notes() { return notes_; }
  CounterMetrics& metrics() { return metrics_; }
  ProfilerContexts& contexts() { return contexts_; }
  CounterOutbox& outbox() { return outbox_; }

  // The context set up for this session's metrics at its first use; nullptr when it
  // failed (notes say why).
  ProfiledContext* Acquire(CUcontext ctx) { return contexts_.Acquire(ctx, *this); }
  // Sizes and initializes the context's counter data for c.max_ranges ranges.
  bool Reinit(ProfiledContext& c);
  // The configuration for pass `pass` at nesting level `level`.
  bool SetConfig(ProfiledContext& c, size_t pass, size_t level);
  // Rotate, before a set of at most `ranges` ranges a pass: the counter data
  // re-initialized only if they might not fit after those it holds, then SetConfig for
  // the first pass. False: the context failed.
  bool PrepareSet(ProfiledContext& c, size_t ranges);
  // A new Range Profiler object for a larger image (ImageRanges::Before). A failed
  // Disable keeps the object, so that Stop still disables it.
  bool Reenable(ProfiledContext& c);

  // A line on stderr every 2 s at most on the progress of the measurements.
  void Progress();
  // Kernel replay's advice for loops (Planner::ReplayAdviceOnce), on stderr the first
  // time it applies: asked at each launch not measured, as the loop that makes it apply
  // runs after the last replay.
  void AdviseOnce();
  // `name`: the launch's kernel, demangled (MeasuredTable::Classify).
  void MarkMeasured(uint32_t correlation_id, const std::string& name) {
    measured_.Mark(correlation_id, name);
  }
  // A launch whose call overlapped a set of another launch's (MeasuredTable::MarkCall).
  void MarkCall(uint32_t correlation_id, const std::string& name) {
    measured_.MarkCall(correlation_id, name);
  }
  // Range Profiler Starts of launch strategies so far (kernel replay, rotate, sweep).
  void CountStart() { ++starts_; }
  uint64_t starts() const { return starts_; }
  // True the first time a set of `device_id` is kept (its device metrics go with it).
  bool FirstOnDevice(uint32_t device_id) { return device_metrics_done_.insert(device_id).second; }

  // At Start: the notes on rotate's settings (records held off, the time budget).
  void NoteSettings(bool rotate_holds_kernels);
  // At Stop, after the strategies' own notes: the counts and times of the session.
  void NoteEnd();

  // ContextSetup.
  uint64_t* SetupNs() override { return &planner_.stats().setup_ns; }
  bool Metrics(uint32_t device_id) override;
  size_t Ranges() override;
  bool Configure(ProfiledContext& c) override;
  void Failed(const char* call, CUptiResult r) override;

 private:
  class ImageSetUp;  // PrepareSet's ImageCalls
  // rotate_budget_pct set for a strategy that does not use it: a note.
  void NoteBudget();
  // Rotate and the sweep (not region counters): the image is sized per set, not at setup.
  bool SetsShareImage() const { return planner_.rotate() && !planner_.region_mode(); }

  uint64_t starts_ = 0;  // CountStart
  const CollectOptions options_;
  Planner planner_;
  CounterNotes notes_;
  CounterMetrics metrics_;
  ProfilerContexts& contexts_;
  CounterOutbox& outbox_;
  MeasuredTable& measured_;
  const uint64_t start_ns_;
  uint64_t last_progress_ns_ = 0;
  size_t largest_image_ranges_ = 0;  // for counters.image
  absl::flat_hash_set<uint32_t> device_metrics_done_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTER_RUN_H_
