#include "lib/collect/profiler_calls.h"

#include "absl/strings/str_format.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/held_timer.h"
#include "lib/collect/own_spans.h"

namespace cuscope::collect {

bool ProfilerCalls::Start() {
  c_.window_start_ns = MonotonicNs();
  Phase timed(HeldPhase::kPass, &run_.stats().measure_ns, c_.window_start_ns);
  if (run_.options().counters.setconfig_each_pass && plan_.next_pass > 0 &&
      !run_.SetConfig(c_, plan_.next_pass, plan_.next_level)) {
    c_.failed = true;
    return false;
  }
  run_.CountStart();
  CUptiResult result = c_.profiler.Start();
  if (result != CUPTI_SUCCESS) {
    run_.notes().Note(&model::RunNotes::counters_status,
                      ExplainCupti("cuptiRangeProfilerStart", result));
    c_.failed = true;
    return false;
  }
  return true;
}

RangeCalls::Stopped ProfilerCalls::Stop() {
  Phase timed(HeldPhase::kPass, &run_.stats().measure_ns);
  RangeProfiler::StopResult stop = c_.profiler.Stop();
  // The window (own_time.h): from its Start to its Stop, with its launches.
  static const std::vector<Launch> kNone;
  RecordCounterSpan(run_.outbox(), window_kind_, c_.window_start_ns, c_,
                    plan_.windows.empty() ? kNone : plan_.windows.back());
  c_.window_start_ns = 0;
  CounterNotes& notes = run_.notes();
  if (stop.result != CUPTI_SUCCESS) {
    notes.Note(&model::RunNotes::counters_stop,
               ExplainCupti("cuptiRangeProfilerStop", stop.result));
    c_.failed = true;
    return {};
  }
  plan_.next_pass = stop.all_passes_submitted ? 0 : stop.pass_index;
  plan_.next_level = stop.all_passes_submitted ? 1 : stop.target_level;
  if (run_.options().verbose) {
    notes.Log(12, absl::StrFormat("window %d: %d launches, next pass %d, all passes submitted %d",
                                  plan_.windows.size(), plan_.windows.back().size(),
                                  stop.pass_index, stop.all_passes_submitted ? 1 : 0));
  }
  return {true, stop.all_passes_submitted};
}

void ProfilerCalls::Finished(bool decoded) {
  if (!decoded) c_.image.Invalidate();
  run_.Progress();
}

uint64_t ProfilerCalls::NowNs() { return MonotonicNs(); }

}  // namespace cuscope::collect
