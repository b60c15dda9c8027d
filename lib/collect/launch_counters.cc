#include "lib/collect/launch_counters.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace cuscope::collect {

LaunchCounters::LaunchCounters(CounterRun& run, const RegionStack* regions, GpuKindControl* kinds,
                               IdleSignals& signals)
    : run_(run), kinds_(kinds), switch_(run, signals, kinds), sets_(run), regions_(regions) {}

void LaunchCounters::OnLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                              const CUpti_CallbackData* cb) {
  if (IsGraphLaunch(domain, cbid)) {
    // Kernels of a graph are not seen one by one: keep them out of windows.
    if (cb->callbackSite == CUPTI_API_ENTER) Graph(cb);
    return;
  }
  if (IsCaptureBegin(domain, cbid)) {
    // Windows end before a capture begins: ending one during it (a Stop, which waits for
    // the GPU) could break the capture.
    if (cb->callbackSite == CUPTI_API_ENTER) CaptureBegins();
    return;
  }
  LaunchShape shape;
  if (!DescribeLaunch(domain, cbid, cb, &shape)) return;
  // A runtime launch on a thread whose context the runtime has not made current yet
  // (PyTorch's autograd threads) reaches API_ENTER with no context: enabling the
  // profiler on it fails with CUPTI_ERROR_INVALID_CONTEXT. The driver launch inside
  // it, with the same correlation id, carries the context: leave the launch to it.
  if (cb->context == nullptr) {
    ++null_context_launches_;
    return;
  }
  // One launch can raise its callback twice (CUDA 13.0 does): without this, every
  // correlation id would enter rotate's windows twice (a window of k entries decodes
  // k/2 ranges). Each call is handled once per site.
  thread_local uint32_t last_correlation[2] = {0, 0};
  uint32_t& last = last_correlation[cb->callbackSite == CUPTI_API_EXIT ? 1 : 0];
  if (cb->correlationId != 0 && cb->correlationId == last) return;
  last = cb->correlationId;
  // Whether a set of another launch's was in progress during this call (at its entry,
  // at its exit, or begun between by another thread): see MarkIfOverlapped.
  thread_local bool busy_at_enter = false;
  thread_local uint64_t starts_at_enter = 0;
  if (cb->callbackSite == CUPTI_API_EXIT) {
    Exit(cb);
    if (busy_at_enter || AnySetInProgress() || run_.starts() != starts_at_enter) {
      MarkOverlapped(cb);
    }
  } else {
    busy_at_enter = AnySetInProgress();
    starts_at_enter = run_.starts();
    OnEnter(cb, shape);
  }
}

void LaunchCounters::MarkOverlapped(const CUpti_CallbackData* cb) {
  // CUPTI may have made this launch a range of the set, or stopped or decoded the set in
  // its call: its kernels for that (the WaitNs kernel of each range, the Stop's) carry
  // this launch's correlation id. A launch the set measures is marked measured already;
  // another thread's launch whose entry came before the set began is not, and its own
  // record must stay the program's while CUPTI's are told apart.
  if (cb->symbolName == nullptr) return;
  run_.MarkCall(cb->correlationId, run_.planner().KernelName(cb->symbolName).first);
}

void LaunchCounters::OnEnter(const CUpti_CallbackData* cb, const LaunchShape& shape) {
  Planner& planner = run_.planner();
  ++planner.stats().launches_seen;
  const char* symbol = cb->symbolName ? cb->symbolName : "";
  bool nccl = false;
  const std::pair<std::string, bool>& name = planner.KernelName(symbol, &nccl);
  if (nccl) ++planner.stats().nccl_launches;
  Signature sig{name.first, shape.grid, shape.block};
  // Decided idle, the switch not yet made: nothing new begins (a set would outlive
  // the callbacks); a signature still to sample wakes them from its kernel record.
  bool want = !switch_.off() && planner.WantSample(sig, name.second, *regions_);
  const bool settled = switch_.enabled() && !want && planner.Settled(sig, name.second);

  ProfiledContext* c = run_.contexts().Find(cb->context);
  if (c == nullptr || c->failed) {
    if (!want) {
      switch_.CountIdle(sig, settled, /*busy=*/false);
      return;
    }
    c = run_.Acquire(cb->context);
    if (c == nullptr) return;
  }
  c->context_uid = cb->contextUid;
  Enter(*c, EnteredLaunch{cb, shape, sig, want, name.second, settled, nccl});
}

bool LaunchCounters::ExtraSample(const EnteredLaunch& launch) {
  return !launch.want && !switch_.off() &&
         run_.planner().ExtraSample(launch.sig, launch.matches, *regions_);
}

bool LaunchCounters::Captured(const EnteredLaunch& launch) {
  if (!LaunchCaptured(launch.shape)) return false;
  ++run_.stats().captured_launches;
  return true;
}

void LaunchCounters::HandOver(const LaunchCounters& from, LaunchCounters& to, ProfiledContext& c,
                              const EnteredLaunch& launch) {
  to.null_context_launches_ += from.null_context_launches_;
  to.Enter(c, launch);
}

void LaunchCounters::Finish() {
  if (null_context_launches_ > 0) {
    run_.notes().Set(&model::RunNotes::counters_no_context_callbacks,
                     static_cast<int64_t>(null_context_launches_));
  }
  switch_.Note();
}

}  // namespace cuscope::collect
