#include "lib/collect/counter_run.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/held_timer.h"
#include "lib/collect/image_ranges.h"
#include "lib/collect/stderr.h"

namespace cuscope::collect {

CounterRun::CounterRun(const CollectOptions& options, bool region_mode, uint64_t start_ns,
                       ProfilerContexts& contexts, CounterOutbox& outbox, MeasuredTable& measured)
    : options_(options),
      planner_(options.counters, /*rotate=*/region_mode, region_mode),
      contexts_(contexts),
      outbox_(outbox),
      measured_(measured),
      start_ns_(start_ns) {
  planner_.SetMode(ChooseLaunchMode(options.counters, /*passes=*/0));  // (not for regions)
}

bool CounterRun::Reinit(ProfiledContext& c) {
  Phase timed(HeldPhase::kImage, &planner_.stats().reinit_ns);
  const char* failed_call = "";
  CUptiResult r = c.profiler.InitCounterData(metrics_.names(), c.max_ranges, &failed_call);
  if (r != CUPTI_SUCCESS) {
    c.image.Invalidate();
    notes_.Note(&model::RunNotes::counters_status, ExplainCupti(failed_call, r));
    return false;
  }
  ++planner_.stats().reinits;
  c.image.Reset(c.max_ranges);
  if (c.max_ranges > largest_image_ranges_) {  // the largest image
    largest_image_ranges_ = c.max_ranges;
    notes_.Set(
        &model::RunNotes::counters_image,
        absl::StrFormat("%.1f MiB for %d ranges (%d bytes per range)",
                        c.profiler.counter_data().size() / 1048576.0, c.max_ranges,
                        c.profiler.counter_data().size() / std::max<size_t>(1, c.max_ranges)));
  }
  return true;
}

bool CounterRun::SetConfig(ProfiledContext& c, size_t pass, size_t level) {
  CUptiResult r = c.profiler.SetConfig(metrics_.config().image, planner_.region_mode(),
                                       planner_.rotate(), c.max_ranges, pass, level);
  if (r != CUPTI_SUCCESS) {
    notes_.Note(&model::RunNotes::counters_status, ExplainCupti("cuptiRangeProfilerSetConfig", r));
    return false;
  }
  return true;
}

// PrepareImage's calls on one context, through the session.
class CounterRun::ImageSetUp final : public ImageCalls {
 public:
  ImageSetUp(CounterRun& run, ProfiledContext& c) : run_(run), c_(c) {}
  bool Reenable() override { return run_.Reenable(c_); }
  bool Initialize(size_t capacity) override {
    c_.max_ranges = capacity;
    return run_.Reinit(c_);
  }
  bool Configure() override { return run_.SetConfig(c_, 0, 1); }

 private:
  CounterRun& run_;
  ProfiledContext& c_;
};

bool CounterRun::PrepareSet(ProfiledContext& c, size_t ranges) {
  // SetConfig for each pass (a debugging switch) on a used image: not measured.
  if (options_.counters.setconfig_each_pass) c.image.Invalidate();
  ImageSetUp calls(*this, c);
  if (!PrepareImage(c.image, ranges, options_.counters.size_images && !c.sizing_off,
                    planner_.window_limit(), &c.configured, calls)) {
    c.failed = true;
    return false;
  }
  return true;
}

bool CounterRun::Reenable(ProfiledContext& c) {
  Phase timed(HeldPhase::kImage, &planner_.stats().reinit_ns);
  CUptiResult r = c.profiler.Disable();
  if (r != CUPTI_SUCCESS) {
    notes_.Note(&model::RunNotes::counters_status, ExplainCupti("cuptiRangeProfilerDisable", r));
    return false;
  }
  r = c.profiler.Enable(c.ctx);
  if (r != CUPTI_SUCCESS) {
    notes_.Note(&model::RunNotes::counters_status, ExplainCupti("cuptiRangeProfilerEnable", r));
    return false;
  }
  ++planner_.stats().reenables;
  return true;
}

bool CounterRun::Metrics(uint32_t device_id) {
  // The metric configuration, once per session (at the first measured context); its
  // passes decide a pending mode (Planner::set_passes).
  const bool pending = planner_.mode() == LaunchMode::kPending;
  if (planner_.mode() != LaunchMode::kRefused && !metrics_.ready() &&
      !metrics_.SetUp(device_id, options_, planner_, notes_, outbox_)) {
    return false;
  }
  if (planner_.mode() == LaunchMode::kRefused) {
    notes_.Note(&model::RunNotes::counters_status,
                SweepRefusal(options_.counters, planner_.passes()));
    return false;
  }
  if (planner_.mode() == LaunchMode::kPending) return false;  // no configuration was made
  if (pending) NoteBudget();
  return true;
}

size_t CounterRun::Ranges() { return SetsShareImage() ? planner_.window_limit() : 1; }

bool CounterRun::Configure(ProfiledContext& c) {
  // Rotate: the first set's PrepareSet sizes the image (and so the object's room).
  if (SetsShareImage()) return true;
  if (!Reinit(c) || !SetConfig(c, 0, 1)) return false;
  c.configured = true;
  return true;
}

void CounterRun::Failed(const char* call, CUptiResult r) {
  notes_.Note(&model::RunNotes::counters_status, ExplainCupti(call, r));
}

void CounterRun::Progress() {
  uint64_t now = MonotonicNs();
  if (now - start_ns_ < 2000000000ull || now - last_progress_ns_ < 2000000000ull) return;
  last_progress_ns_ = now;
  WriteStderr(absl::StrFormat(
      "cuscope: counters: %.0f s: %s%s\n", (now - start_ns_) / 1e9, planner_.Describe(),
      options_.counters.launch_count > 0
          ? absl::StrFormat(", planned at most %d", options_.counters.launch_count)
          : ""));
  AdviseOnce();
}

void CounterRun::AdviseOnce() {
  if (std::string advice = planner_.ReplayAdviceOnce(); !advice.empty()) {
    WriteStderr(absl::StrCat("cuscope: counters: ", advice, "\n"));
  }
}

void CounterRun::NoteBudget() {
  if (options_.counters.rotate_budget_pct > 0 && !planner_.budget().enabled()) {
    notes_.Note(
        &model::RunNotes::counters_budget,
        absl::StrFormat("rotate_budget_pct=%d is not used: it bounds rotate's sets, and "
                        "this run measures with %s (--replay=rotate uses it)",
                        options_.counters.rotate_budget_pct,
                        planner_.region_mode() ? "region counters" : planner_.StrategyName()));
  }
}

void CounterRun::NoteSettings(bool rotate_holds_kernels) {
  // A pending mode is noted once the passes decide it (Metrics); a refused one says so
  // then.
  const LaunchMode mode = planner_.mode();
  if (planner_.region_mode() || (mode != LaunchMode::kPending && mode != LaunchMode::kRefused)) {
    NoteBudget();
  }
  if (rotate_holds_kernels) {
    notes_.Note(&model::RunNotes::counters_kernel_trace,
                "kernel, copy, memset, sync and event records are held off while rotate's sets "
                "run (instruction counters read 0 while kernels are traced): the kernels "
                "measured in the sets get records made from their launches, placed from the "
                "launch call with their samples' durations; --replay=kernel keeps every record");
  }
}

void CounterRun::NoteEnd() {
  planner_.budget().Observe(MonotonicNs());  // the share up to the end, callbacks off or on
  const CounterStats& stats = planner_.stats();
  notes_.Set(&model::RunNotes::counters_launches_measured,
             static_cast<int64_t>(stats.launches_measured));
  notes_.Set(&model::RunNotes::counters_samples_complete,
             static_cast<int64_t>(stats.sets_complete));
  notes_.Set(&model::RunNotes::counters_samples_dropped, static_cast<int64_t>(stats.sets_dropped));
  if (planner_.sweep()) {
    notes_.Set(&model::RunNotes::counters_windows, static_cast<int64_t>(stats.windows_opened));
    notes_.Set(&model::RunNotes::counters_windows_unproductive,
               static_cast<int64_t>(stats.windows_unproductive));
  }
  if (stats.backoffs > 0) {
    notes_.Set(&model::RunNotes::counters_backoff,
               absl::StrFormat("backed off %d times after windows in a row kept no sample: "
                               "waits of up to %d launches, %d wanted launches not measured",
                               stats.backoffs, stats.longest_backoff, stats.backoff_launches));
  }
  if (stats.nccl_launches > 0) {
    notes_.Set(&model::RunNotes::counters_nccl_launches, static_cast<int64_t>(stats.nccl_launches));
  }
  if (stats.captured_launches > 0) {
    notes_.Set(&model::RunNotes::counters_captured_launches,
               static_cast<int64_t>(stats.captured_launches));
  }
  if (metrics_.ready()) {
    // Stored for the reports, which open with it; on stderr only when verbose (counters
    // are on by default, and a run's end prints its report).
    std::string summary =
        absl::StrCat(notes_.Get(&model::RunNotes::counters_strategy), ": ", planner_.Describe());
    if (options_.verbose) {
      notes_.Note(&model::RunNotes::counters_summary, std::move(summary));
    } else {
      notes_.Set(&model::RunNotes::counters_summary, std::move(summary));
    }
  }
  if (std::string advice = planner_.ReplayAdvice(); !advice.empty()) {
    notes_.Note(&model::RunNotes::counters_advice, advice);
  }
  notes_.Set(&model::RunNotes::counters_setup_ms, absl::StrFormat("%.1f", stats.setup_ns / 1e6));
  notes_.Set(&model::RunNotes::counters_measure_ms,
             absl::StrFormat("%.1f", stats.measure_ns / 1e6));
  notes_.Set(
      &model::RunNotes::counters_host_ms,
      absl::StrFormat(
          "decode %.1f, evaluate %.1f, counter image initialized %.1f (%d times%s)",
          stats.decode_ns / 1e6, stats.evaluate_ns / 1e6, stats.reinit_ns / 1e6, stats.reinits,
          stats.reenables > 0
              ? absl::StrFormat(", %d of them on a new Range Profiler object", stats.reenables)
              : ""));
}

}  // namespace cuscope::collect
