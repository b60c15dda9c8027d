// The counter sampler's launch callbacks: which launch is measured is the planner's
// answer, and in rotate the sets are the rotate driver's (rotate_driver.h); this file
// makes the Range Profiler calls around the launches.
#include "absl/strings/str_format.h"
#include "lib/collect/counters.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/launch_params.h"
#include "lib/collect/rotate_driver.h"

namespace cuscope::collect {

// The rotate driver's Range Profiler calls on one context. Made only under mu_,
// from the launch callbacks and Stop.
class CounterSampler::RotateCalls final : public RangeCalls {
 public:
  RotateCalls(CounterSampler& s, Context& c) : s_(s), c_(c) {}
  bool Start() override ABSL_NO_THREAD_SAFETY_ANALYSIS { return s_.StartPass(c_); }
  Stopped Stop() override ABSL_NO_THREAD_SAFETY_ANALYSIS { return s_.StopPass(c_); }
  std::optional<size_t> Decode() override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return s_.DecodeRanges(c_, c_.plan.windows);
  }
  bool Keep(size_t range, RangeMatch& match) override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return s_.EvaluateSet(c_, range, match);
  }
  bool Prepare(size_t ranges) override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    return s_.PrepareSet(c_, ranges);
  }
  void Finished(bool decoded) override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    if (!decoded) c_.image.Invalidate();
    s_.Progress();
  }
  void SetInProgress(bool in_set) override ABSL_NO_THREAD_SAFETY_ANALYSIS {
    s_.SetInProgress(c_, in_set);
  }
  void Measured(const Launch& launch) override {
    s_.MarkMeasured(launch.correlation_id, launch.sig.name);
  }
  uint64_t NowNs() override { return MonotonicNs(); }

 private:
  CounterSampler& s_;
  Context& c_;
};

void CounterSampler::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (!active_flag_.load(std::memory_order_relaxed)) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  {
    absl::MutexLock lock(&mu_);
    if (!active_) return;
    HeldTimer held(this);
    OnLaunchCallback(domain, cbid, cb);
  }
  ReleaseKernelHold();
  if (flush_after_replay_.exchange(false)) kinds_->FlushAfterReplay();
}

void CounterSampler::OnLaunchCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                      const CUpti_CallbackData* cb) {
  if (IsGraphLaunch(domain, cbid)) {
    // Kernels of a graph are not seen one by one: keep them out of windows.
    if (cb->callbackSite == CUPTI_API_ENTER && planner_->rotate()) {
      auto it = contexts_.find(cb->context);
      if (it != contexts_.end() && !it->second->failed) {
        RotateCalls calls(*this, *it->second);
        RotateDriver(*planner_, calls).Graph(it->second->plan);
      }
    }
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
    OnLaunchEnter(cb, shape);
  }
}

void CounterSampler::OnLaunchExit(const CUpti_CallbackData* cb) {
  auto it = contexts_.find(cb->context);
  if (it != contexts_.end() && !it->second->made.empty()) QueueHeldLaunch(*it->second, cb);
  if (planner_->rotate()) {
    // The driver ends a full window and opens the next one here, between launches: a
    // window started inside the launch's own API_ENTER callback misses instrumented
    // (SASS) counters (measured on the H200: FFMA 0 instead of N).
    if (it == contexts_.end() || it->second->failed) return;
    RotateCalls calls(*this, *it->second);
    RotateDriver(*planner_, calls).Exit(it->second->plan);
    Progress();
    return;
  }
  if (it == contexts_.end() || !it->second->replaying) return;
  Context& c = *it->second;
  c.replaying.reset();
  Phase timed(HeldPhase::kPass, &planner_->stats().measure_ns, c.replay_start_ns);
  RangeProfiler::StopResult stop = c.profiler.Stop();
  if (stop.result != CUPTI_SUCCESS) {
    Note("counters.stop", ExplainCupti("cuptiRangeProfilerStop", stop.result));
    return;
  }
  DecodeSet(c);
  flush_after_replay_.store(true);  // once mu_ is let go (OnCallback)
}

void CounterSampler::OnLaunchEnter(const CUpti_CallbackData* cb, const LaunchShape& shape) {
  ++planner_->stats().launches_seen;
  const char* symbol = cb->symbolName ? cb->symbolName : "";
  const std::pair<std::string, bool>& name = planner_->KernelName(symbol);
  Signature sig{name.first, shape.grid, shape.block};
  // Decided idle, the switch not yet made: nothing new begins (a set would outlive
  // the callbacks); a signature still to sample wakes them from its kernel record.
  bool want = !idle_.off() && planner_->WantSample(sig, name.second, *regions_);
  const bool settled = idle_.enabled() && !want && planner_->Settled(sig, name.second);

  auto ctx_it = contexts_.find(cb->context);
  Context* c = ctx_it == contexts_.end() ? nullptr : ctx_it->second.get();
  if (c == nullptr || c->failed) {
    if (!want) {
      CountIdle(sig, settled, /*busy=*/false);
      return;
    }
    c = GetContext(cb->context);
    if (c == nullptr) return;
  }
  Launch launch{sig, cb->correlationId, want};
  if (planner_->rotate()) {
    // Every launch on the context goes into its history; one inside a window is a range.
    RotateCalls calls(*this, *c);
    RotateDriver(*planner_, calls).Enter(c->plan, launch);
    const ContextPlan& plan = c->plan;
    CountIdle(sig, settled, plan.in_set || plan.window_open);
    if (c->kernels_held && plan.window_open && !plan.windows.empty() &&
        !plan.windows.back().empty() &&
        plan.windows.back().back().correlation_id == cb->correlationId &&
        kinds_->KernelRecordsHeldOff()) {
      RecordHeldLaunch(*c, cb, sig, shape);
    }
    return;
  }
  c->plan.last_wanted = want;
  CountIdle(sig, settled, /*busy=*/false);
  if (!want) {
    AdviseOnce();
    return;
  }
  uint64_t start_ns = MonotonicNs();
  CUptiResult r;
  {
    Phase named(HeldPhase::kPass, /*sum=*/nullptr, start_ns);  // counted at the Stop
    r = c->profiler.Start();
  }
  if (r != CUPTI_SUCCESS) {
    Note("counters.status", ExplainCupti("cuptiRangeProfilerStart", r));
    c->failed = true;
    return;
  }
  c->plan.windows.assign(1, {launch});
  c->replaying = launch;
  c->replay_start_ns = start_ns;
  planner_->CountMeasured();
  MarkMeasured(cb->correlationId, sig.name);
}

void CounterSampler::SetInProgress(Context& c, bool in_set) {
  if (!rotate_hold_kernels_ || c.kernels_held == in_set) return;
  c.kernels_held = in_set;
  absl::MutexLock lock(&hold_mu_);
  if (in_set) {
    // Before the set's first pass starts (the switch, a CUPTI call per GPU kind, must
    // not fall in a window): here, under mu_. Held still if the last set just ended.
    if (sets_holding_kernels_++ == 0 && !kernels_held_) {
      kernels_held_ = true;
      kinds_->HoldGpuKinds(true);
    }
  } else if (--sets_holding_kernels_ == 0) {
    release_pending_.store(true);  // ReleaseKernelHold, once the callback let go of mu_
  }
}

void CounterSampler::ReleaseKernelHold() {
  if (!release_pending_.exchange(false)) return;
  absl::MutexLock lock(&hold_mu_);
  if (!kernels_held_ || sets_holding_kernels_ > 0) return;  // a set began meanwhile
  kernels_held_ = false;
  kinds_->HoldGpuKinds(false);
}

void CounterSampler::NoteRotateSettings(const CounterOptions& options, bool region_mode) {
  if (options.rotate_budget_pct > 0 && !planner_->budget().enabled()) {
    Note("counters.budget",
         absl::StrFormat("rotate_budget_pct=%d is not used: it bounds rotate's sets, and this "
                         "run measures with %s (--replay=rotate uses it)",
                         options.rotate_budget_pct,
                         region_mode ? "region counters" : "kernel replay"));
  }
  if (rotate_hold_kernels_) {
    Note("counters.kernel_trace",
         "kernel, copy, memset, sync and event records are held off while rotate's sets run "
         "(instruction counters read 0 while kernels are traced): the kernels measured in "
         "the sets get records made from their launches, placed from the launch call with "
         "their samples' durations; --replay=kernel keeps every record");
  }
}

void CounterSampler::EndRotate(Context& c) {
  RotateCalls calls(*this, c);
  RotateDriver(*planner_, calls).End(c.plan);
}

bool CounterSampler::StartPass(Context& c) {
  Phase timed(HeldPhase::kPass, &planner_->stats().measure_ns);
  if (setconfig_each_pass_ && c.plan.next_pass > 0 &&
      !SetConfig(c, c.plan.next_pass, c.plan.next_level)) {
    c.failed = true;
    return false;
  }
  CUptiResult r = c.profiler.Start();
  if (r != CUPTI_SUCCESS) {
    Note("counters.status", ExplainCupti("cuptiRangeProfilerStart", r));
    c.failed = true;
    return false;
  }
  return true;
}

RangeCalls::Stopped CounterSampler::StopPass(Context& c) {
  Phase timed(HeldPhase::kPass, &planner_->stats().measure_ns);
  RangeProfiler::StopResult stop = c.profiler.Stop();
  if (stop.result != CUPTI_SUCCESS) {
    Note("counters.stop", ExplainCupti("cuptiRangeProfilerStop", stop.result));
    c.failed = true;
    return {};
  }
  c.plan.next_pass = stop.all_passes_submitted ? 0 : stop.pass_index;
  c.plan.next_level = stop.all_passes_submitted ? 1 : stop.target_level;
  if (options_.verbose && windows_logged_ < 12) {
    ++windows_logged_;
    Note(absl::StrCat("counters.window", windows_logged_),
         absl::StrFormat("window %d: %d launches, next pass %d, all passes submitted %d",
                         c.plan.windows.size(), c.plan.windows.back().size(), stop.pass_index,
                         stop.all_passes_submitted ? 1 : 0));
  }
  return {true, stop.all_passes_submitted};
}

}  // namespace cuscope::collect
