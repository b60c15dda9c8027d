#include "lib/collect/rotate_counters.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/held_timer.h"
#include "lib/collect/profiler_calls.h"

namespace cuscope::collect {

// The rotate driver's Range Profiler calls on one context, made under the session lock
// from the launch callbacks and Stop; a set holds kernel records off (with instruction
// counters).
class RotateCounters::Calls final : public ProfilerCalls {
 public:
  Calls(RotateCounters& s, ProfiledContext& c, Rotated& r)
      : ProfilerCalls(s.run_, s.sets_, c, r.plan, model::OwnKind::kRotateWindow), s_(s), r_(r) {}
  void SetInProgress(bool in_set) override { s_.SetInProgress(r_, in_set); }

 private:
  RotateCounters& s_;
  Rotated& r_;
};

void RotateCounters::Enter(ProfiledContext& c, const EnteredLaunch& entered) {
  Rotated& r = contexts_[c.ctx];
  const CUpti_CallbackData* cb = entered.cb;
  const Signature& sig = entered.sig;
  Calls calls(*this, c, r);
  RotateDriver driver(run_.planner(), calls);
  // A launch that would be measured or begin a set, made during stream capture, is never
  // measured: nor is an NCCL kernel. An open window ends before it.
  const bool unsafe = entered.nccl || ((entered.want || r.plan.window_open) && Captured(entered));
  if (unsafe) driver.Unsafe(r.plan);
  Launch launch{sig, cb->correlationId, entered.want && !unsafe};
  // Every launch on the context goes into its history; one inside a window is a range.
  driver.Enter(r.plan, launch);
  const ContextPlan& plan = r.plan;
  switch_.CountIdle(sig, entered.settled, plan.in_set || plan.window_open);
  if (r.kernels_held && plan.window_open && !plan.windows.empty() && !plan.windows.back().empty() &&
      plan.windows.back().back().correlation_id == cb->correlationId &&
      kinds_->KernelRecordsHeldOff()) {
    r.made.Record(c.device_id, cb, sig, entered.shape);
  }
}

void RotateCounters::Exit(const CUpti_CallbackData* cb) {
  auto it = contexts_.find(cb->context);
  if (it != contexts_.end() && !it->second.made.empty()) QueueHeldLaunch(it->second, cb);
  ProfiledContext* c = run_.contexts().Find(cb->context);
  if (c == nullptr || c->failed) return;
  Rotated& r = contexts_[cb->context];
  Calls calls(*this, *c, r);
  RotateDriver(run_.planner(), calls).Exit(r.plan);
  run_.Progress();
}

void RotateCounters::Graph(const CUpti_CallbackData* cb) {
  ProfiledContext* c = run_.contexts().Find(cb->context);
  if (c == nullptr || c->failed) return;
  Rotated& r = contexts_[cb->context];
  Calls calls(*this, *c, r);
  RotateDriver(run_.planner(), calls).Graph(r.plan);
}

void RotateCounters::CaptureBegins() {
  for (auto& [ctx, r] : contexts_) {
    ProfiledContext* c = run_.contexts().Find(ctx);
    if (c == nullptr || c->failed || !r.plan.window_open) continue;
    Calls calls(*this, *c, r);
    RotateDriver(run_.planner(), calls).Unsafe(r.plan);
  }
}

void RotateCounters::EndContext(ProfiledContext& c) {
  auto it = contexts_.find(c.ctx);
  if (it == contexts_.end()) return;
  if (!c.failed) {
    Calls calls(*this, c, it->second);
    RotateDriver(run_.planner(), calls).End(it->second.plan);
  }
  SetInProgress(it->second, false);  // a hold left by a set that could not end (none expected)
}

void RotateCounters::SetInProgress(Rotated& r, bool in_set) {
  if (hold_ == nullptr || r.kernels_held == in_set) return;
  r.kernels_held = in_set;
  hold_->SetInProgress(in_set);
}

void RotateCounters::QueueHeldLaunch(Rotated& r, const CUpti_CallbackData* cb) {
  std::optional<MadeKernel> k = r.made.Take(cb);
  if (!k || run_.outbox().AddKernel(std::move(*k))) return;
  if (made_dropped_++ == 0) {
    run_.notes().Note(&model::RunNotes::counters_made_records,
                      "kernel records made from launches were left out: none was drained (the "
                      "activity buffers stopped coming back)");
  }
}

bool RotateCounters::AnySetInProgress() const {
  for (const auto& [ctx, r] : contexts_) {
    if (r.plan.in_set || r.plan.window_open) return true;
  }
  return false;
}

void RotateCounters::ForgetWanted() {
  for (auto& [ctx, r] : contexts_) r.plan.last_wanted = false;
}

void RotateCounters::Resumed() {
  for (auto& [ctx, r] : contexts_) RotateDriver::Resumed(r.plan);
}

}  // namespace cuscope::collect
