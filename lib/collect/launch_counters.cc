// The counter sampler's launch callbacks: which launch is measured is the planner's
// answer; this file makes the Range Profiler calls around the launches.
#include "lib/collect/counters.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/launch_params.h"

namespace cuscope::collect {

void CounterSampler::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (!active_flag_.load(std::memory_order_relaxed)) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  absl::MutexLock lock(&mu_);
  if (!active_) return;
  if (IsGraphLaunch(domain, cbid)) {
    // Kernels of a graph are not seen one by one: keep them out of windows.
    if (cb->callbackSite == CUPTI_API_ENTER) {
      auto it = contexts_.find(cb->context);
      if (it != contexts_.end() && !it->second->failed) CloseWindow(*it->second);
    }
    return;
  }
  model::Dim3 grid, block;
  if (!DescribeLaunch(domain, cbid, cb, &grid, &block)) return;
  // A runtime launch on a thread whose context the runtime has not made current yet
  // (PyTorch's autograd threads) reaches API_ENTER with no context: enabling the
  // profiler on it fails with CUPTI_ERROR_INVALID_CONTEXT. The driver launch inside
  // it, with the same correlation id, carries the context: leave the launch to it.
  if (cb->context == nullptr) {
    ++null_context_launches_;
    return;
  }
  // One launch raises its callback twice on the H200 (CUDA 13.0): without this, a
  // rotate run put every correlation id twice into its windows (a window of k
  // entries decoded k/2 ranges). Each call is handled once per site.
  thread_local uint32_t last_correlation[2] = {0, 0};
  uint32_t& last = last_correlation[cb->callbackSite == CUPTI_API_EXIT ? 1 : 0];
  if (cb->correlationId != 0 && cb->correlationId == last) return;
  last = cb->correlationId;
  if (cb->callbackSite == CUPTI_API_EXIT) {
    OnLaunchExit(cb);
  } else {
    OnLaunchEnter(cb, grid, block);
  }
}

void CounterSampler::OnLaunchExit(const CUpti_CallbackData* cb) {
  auto it = contexts_.find(cb->context);
  if (planner_->rotate()) {
    // Open the next window now, between launches: a window started inside the
    // launch's own API_ENTER callback misses instrumented (SASS) counters
    // (measured on the H200: FFMA 0 instead of N), one started before it does not.
    if (it == contexts_.end() || it->second->failed) return;
    Context& c = *it->second;
    if (c.plan.window_open) {
      if (!planner_->WindowFull(c.plan)) return;  // room for the next launch
      // Full: end the pass here, between launches, and open the next one now, so the
      // next launch of the signature is measured (ended at its own API_ENTER, the
      // window could not reopen before it, and three launches of one kernel gave no
      // set).
      CloseWindow(c);
      if (c.failed) return;
    }
    if (!planner_->ShouldOpenAfter(c.plan)) return;
    OpenWindow(c, *c.plan.last_sig);
    return;
  }
  if (it == contexts_.end() || !it->second->replaying) return;
  Context& c = *it->second;
  c.replaying.reset();
  AddElapsed timed{&planner_->stats().measure_ns, c.replay_start_ns};
  RangeProfiler::StopResult stop = c.profiler.Stop();
  if (stop.result != CUPTI_SUCCESS) {
    Note("counters.stop", ExplainCupti("cuptiRangeProfilerStop", stop.result));
    return;
  }
  DecodeSet(c);
}

void CounterSampler::OnLaunchEnter(const CUpti_CallbackData* cb, const model::Dim3& grid,
                                   const model::Dim3& block) {
  ++planner_->stats().launches_seen;
  const char* symbol = cb->symbolName ? cb->symbolName : "";
  const std::pair<std::string, bool>& name = planner_->KernelName(symbol);
  Signature sig{name.first, grid, block};
  bool want = planner_->WantSample(sig, name.second, *regions_);

  auto ctx_it = contexts_.find(cb->context);
  Context* c = ctx_it == contexts_.end() ? nullptr : ctx_it->second.get();
  if (c != nullptr && !c->failed && planner_->MustCloseBefore(c->plan, sig, want)) {
    CloseWindow(*c);
  }
  if (c == nullptr || c->failed) {
    if (!want) return;
    c = GetContext(cb->context);
    if (c == nullptr) return;
  }
  c->plan.last_sig = sig;
  c->plan.last_wanted = want;
  if (!want) return;

  Launch launch{sig, cb->correlationId};
  if (!planner_->rotate()) {
    uint64_t start_ns = MonotonicNs();
    CUptiResult r = c->profiler.Start();
    if (r != CUPTI_SUCCESS) {
      Note("counters.status", ExplainCupti("cuptiRangeProfilerStart", r));
      c->failed = true;
      return;
    }
    c->plan.windows.assign(1, {launch});
    c->replaying = launch;
    c->replay_start_ns = start_ns;
  } else {
    // Measured only inside a window opened before this launch (at the previous
    // launch's exit); the first launch of a signature opens the way for the next.
    if (!c->plan.window_open) return;
    c->plan.windows.back().push_back(launch);
  }
  planner_->CountMeasured();
  MarkMeasured(cb->correlationId);
}

}  // namespace cuscope::collect
