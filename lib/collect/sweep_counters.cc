#include "lib/collect/sweep_counters.h"

#include "absl/strings/str_format.h"
#include "lib/collect/profiler_calls.h"
#include "lib/collect/sweep_driver.h"

namespace cuscope::collect {

namespace {
// The launch in the calling thread's call (Enter and Exit of one launch run on its
// thread): whether a window was open at its entry, and the windows opened by then.
thread_local bool t_open_at_enter = false;
thread_local uint64_t t_windows_at_enter = 0;
}  // namespace

void SweepCounters::Enter(ProfiledContext& c, const EnteredLaunch& entered) {
  ContextPlan& plan = contexts_[c.ctx];
  t_open_at_enter = plan.window_open;
  t_windows_at_enter = run_.stats().windows_opened;
  // Asked only of a launch that would open a window or fall in one.
  const bool excluded = entered.nccl || ((entered.want || plan.window_open) && Captured(entered));
  const Launch launch{entered.sig, entered.cb->correlationId, entered.want && !excluded};
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
  auto it = contexts_.find(cb->context);
  const bool open_at_exit = it != contexts_.end() && it->second.window_open;
  OnOpenWindow(cb->context, &SweepDriver::Exit);
  // A window was open during this launch's call (at its entry, at its exit, or opened
  // and closed by other threads between): CUPTI may have made this launch a range, and
  // its WaitNs kernel of the range, or those of the window's Stop and decode, carry this
  // launch's correlation id. A launch of the window is marked measured already; another
  // thread's launch whose entry came before the window opened is not, and its own record
  // must stay the program's while CUPTI's are told apart (MeasuredTable::MarkCall).
  const bool overlapped =
      t_open_at_enter || open_at_exit || run_.stats().windows_opened != t_windows_at_enter;
  if (overlapped && cb->symbolName != nullptr) {
    run_.MarkCall(cb->correlationId, run_.planner().KernelName(cb->symbolName).first);
  }
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
