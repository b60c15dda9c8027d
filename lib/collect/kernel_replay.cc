#include "lib/collect/kernel_replay.h"

#include "lib/collect/elapsed.h"
#include "lib/collect/held_timer.h"
#include "lib/collect/own_spans.h"
#include "lib/collect/rotate_driver.h"

namespace cuscope::collect {

void KernelReplay::Enter(ProfiledContext& c, const EnteredLaunch& entered) {
  Replayed& r = contexts_[c.ctx];
  const CUpti_CallbackData* cb = entered.cb;
  const Signature& sig = entered.sig;
  // (WantSample is never true for an NCCL kernel.)
  const bool want = entered.want && !Captured(entered);
  Launch launch{sig, cb->correlationId, want};
  r.plan.last_wanted = want;
  switch_.CountIdle(sig, entered.settled, /*busy=*/false);
  if (!want) {
    run_.AdviseOnce();
    return;
  }
  uint64_t start_ns = MonotonicNs();
  CUptiResult result;
  {
    Phase named(HeldPhase::kPass, /*sum=*/nullptr, start_ns);  // counted at the Stop
    run_.CountStart();
    result = c.profiler.Start();
  }
  if (result != CUPTI_SUCCESS) {
    run_.notes().Note(&model::RunNotes::counters_status,
                      ExplainCupti("cuptiRangeProfilerStart", result));
    c.failed = true;
    return;
  }
  r.plan.windows.assign(1, {launch});
  r.replaying = launch;
  r.start_ns = start_ns;
  run_.planner().CountMeasured();
  run_.MarkMeasured(cb->correlationId, sig.name);
}

void KernelReplay::Exit(const CUpti_CallbackData* cb) {
  auto it = contexts_.find(cb->context);
  if (it == contexts_.end() || !it->second.replaying) return;
  ProfiledContext* c = run_.contexts().Find(cb->context);
  if (c == nullptr) return;
  Replayed& r = it->second;
  const Launch launch = *r.replaying;
  r.replaying.reset();
  {
    Phase timed(HeldPhase::kPass, &run_.stats().measure_ns, r.start_ns);
    RangeProfiler::StopResult stop = c->profiler.Stop();
    if (stop.result != CUPTI_SUCCESS) {
      run_.notes().Note(&model::RunNotes::counters_stop,
                        ExplainCupti("cuptiRangeProfilerStop", stop.result));
    } else {
      sets_.DecodeSet(*c, r.plan);
      flush_after_replay_->store(true);  // once the session lock is let go (CounterSampler)
    }
  }
  // The replay held the launching thread from its Start to here (own_time.h).
  RecordCounterSpan(run_.outbox(), model::OwnKind::kKernelReplay, r.start_ns, *c, {launch});
}

bool KernelReplay::AnySetInProgress() const {
  for (const auto& [ctx, r] : contexts_) {
    if (r.plan.in_set || r.plan.window_open || r.replaying) return true;
  }
  return false;
}

void KernelReplay::ForgetWanted() {
  for (auto& [ctx, r] : contexts_) r.plan.last_wanted = false;
}

void KernelReplay::Resumed() {
  for (auto& [ctx, r] : contexts_) RotateDriver::Resumed(r.plan);
}

}  // namespace cuscope::collect
