#include "lib/collect/sweep_counters.h"

#include "absl/strings/str_format.h"
#include "lib/collect/profiler_calls.h"
#include "lib/collect/sweep_driver.h"

namespace cuscope::collect {

void SweepCounters::Enter(ProfiledContext& c, const EnteredLaunch& entered) {
  ContextPlan& plan = contexts_[c.ctx];
  // Asked only of a launch that would open a window or fall in one.
  const bool excluded = entered.nccl || ((entered.want || plan.window_open) && Captured(entered));
  // A further sample only in an open window (the only place it is measured).
  const bool extra = plan.window_open && !excluded && ExtraSample(entered);
  const Launch launch{entered.sig, entered.cb->correlationId, entered.want && !excluded, extra};
  ProfilerCalls calls(run_, sets_, c, plan, model::OwnKind::kSweepWindow);
  SweepDriver(run_.planner(), calls).Enter(plan, launch, excluded);
  switch_.CountIdle(entered.sig, entered.settled, plan.window_open);
  NoteBackoff();
}

void SweepCounters::OnOpenWindow(CUcontext ctx, void (SweepDriver::*step)(ContextPlan&)) {
  auto it = contexts_.find(ctx);
  if (it == contexts_.end() || !it->second.window_open) return;
  ProfiledContext* c = run_.contexts().Find(ctx);
  if (c == nullptr || c->failed) return;
  ProfilerCalls calls(run_, sets_, *c, it->second, model::OwnKind::kSweepWindow);
  SweepDriver driver(run_.planner(), calls);
  (driver.*step)(it->second);
  NoteBackoff();
}

void SweepCounters::Exit(const CUpti_CallbackData* cb) {
  OnOpenWindow(cb->context, &SweepDriver::Exit);
}

void SweepCounters::Graph(const CUpti_CallbackData* cb) {
  OnOpenWindow(cb->context, &SweepDriver::Cut);
}

void SweepCounters::CaptureBegins() {
  for (auto& [ctx, plan] : contexts_) OnOpenWindow(ctx, &SweepDriver::Cut);
}

void SweepCounters::EndContext(ProfiledContext& c) { OnOpenWindow(c.ctx, &SweepDriver::Cut); }

void SweepCounters::NoteBackoff() {
  if (backoff_noted_ || run_.stats().backoffs == 0) return;
  backoff_noted_ = true;
  run_.notes().Note(
      &model::RunNotes::counters_backoff,
      absl::StrFormat("%d windows in a row kept no sample: no window opens for the next %d "
                      "launches (the wait doubles while windows keep none)",
                      SweepDriver::kFailuresBeforeBackoff, SweepDriver::kFirstBackoff));
}

bool SweepCounters::AnySetInProgress() const {
  for (const auto& [ctx, plan] : contexts_) {
    if (plan.window_open) return true;
  }
  return false;
}

}  // namespace cuscope::collect
