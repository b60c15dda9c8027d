// Region counters: a region (NVTX range or cuscope scope) matching the counters'
// region filter is one user range, pushed and popped on the region's thread with
// the context current there; successive instances of the same region are the
// passes of one set (user replay).
#include <thread>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/collect/counters.h"
#include "lib/collect/driver.h"
#include "lib/collect/elapsed.h"

namespace cuscope::collect {
namespace {

// The calling thread's current CUDA context, from the driver already loaded. The
// lookup is kept once it succeeds (a session may start before CUDA is loaded).
CUcontext CurrentContext() {
  using GetCurrent = CUresult (*)(CUcontext*);
  static std::atomic<GetCurrent> cached{nullptr};
  GetCurrent get_current = cached.load();
  if (get_current == nullptr) {
    get_current = reinterpret_cast<GetCurrent>(LoadedDriverSymbol("cuCtxGetCurrent"));
    if (get_current == nullptr) return nullptr;
    cached.store(get_current);
  }
  CUcontext ctx = nullptr;
  if (get_current(&ctx) != CUDA_SUCCESS) return nullptr;
  return ctx;
}

}  // namespace

void CounterSampler::OnRegionPush(const std::vector<std::string>& stack) {
  if (!region_mode_flag_.load(std::memory_order_relaxed) || stack.empty()) return;
  bool hold = false;
  {
    absl::MutexLock lock(&mu_);
    if (!active_ || !planner_->region_mode() || region_ || region_reserved_) return;
    if (!planner_->WantRegion(stack.back())) return;
    region_reserved_ = true;  // this thread measures the next instance
    hold = region_hold_kernels_;
  }
  // As in rotate: instruction counters read 0 under user replay while kernels are
  // traced, so the measured instance goes without kernel records. Held before the
  // range starts (the switch costs time that must not fall in the range), and outside
  // mu_ (enabling kinds may wait for CUPTI).
  HeldTimer held(this);  // switching kinds may wait for CUPTI; then the range starts
  kinds_->HoldPeriodicFlush(true);
  if (hold) kinds_->HoldGpuKinds(true);
  const bool started = StartRegion(stack, hold);
  if (hold && !started) kinds_->HoldGpuKinds(false);
  if (!started) kinds_->HoldPeriodicFlush(false);
}

// Starts the user range of the instance reserved by OnRegionPush. mu_ is held across
// the Range Profiler calls (see counters.h).
bool CounterSampler::StartRegion(const std::vector<std::string>& stack, bool hold) {
  absl::MutexLock lock(&mu_);
  region_reserved_ = false;
  std::string path = absl::StrJoin(stack, "/");
  CUcontext ctx = active_ ? CurrentContext() : nullptr;
  Context* c = nullptr;
  if (!active_) {
  } else if (ctx == nullptr) {
    Note("counters.region_context",
         absl::StrFormat("region '%s' began on a thread without a CUDA context: not measured",
                         path));
  } else {
    c = GetContext(ctx);
  }
  if (c == nullptr) return false;
  Phase timed(HeldPhase::kPass, &planner_->stats().measure_ns);
  CUptiResult r = c->profiler.Start();
  if (r == CUPTI_SUCCESS) {
    r = c->profiler.PushRange(path.c_str());
    if (r != CUPTI_SUCCESS) c->profiler.Stop();
  }
  if (r != CUPTI_SUCCESS) {
    Note("counters.status", ExplainCupti("cuptiRangeProfilerStart/PushRange", r));
    c->failed = true;
    return false;
  }
  if (hold) {
    region_paused_tracing_ = true;
    notes_["counters.region_kernels"] =
        "kernel records are off inside measured region instances (instruction counters "
        "read 0 under user replay while kernels are traced)";
  }
  region_ = OpenRegion{c, stack.back(), std::move(path), stack.size(), std::this_thread::get_id()};
  return true;
}

void CounterSampler::OnRegionPop(const std::vector<std::string>& stack) {
  if (!region_mode_flag_.load(std::memory_order_relaxed)) return;
  HeldTimer held(this);  // the range's end, its decode, giving the kinds back
  bool release = false;
  {
    absl::MutexLock lock(&mu_);
    if (!active_ || !region_ || region_->depth != stack.size() ||
        region_->thread != std::this_thread::get_id()) {
      return;
    }
    release = CloseRegion(true);
    Progress();
  }
  if (release) kinds_->HoldGpuKinds(false);
}

// Ends the measured region instance: one pass of its set. Returns true if the
// caller must give the GPU-side activity kinds back (after releasing mu_).
bool CounterSampler::CloseRegion(bool keep) {
  if (!region_) return false;
  OpenRegion region = std::move(*region_);
  region_.reset();
  kinds_->HoldPeriodicFlush(false);  // a flag, no lock
  const bool release = region_paused_tracing_;
  region_paused_tracing_ = false;
  Context& c = *region.context;
  Phase timed(HeldPhase::kPass, &planner_->stats().measure_ns);
  CUptiResult r = c.profiler.PopRange();
  RangeProfiler::StopResult stop = c.profiler.Stop();
  if (r != CUPTI_SUCCESS || stop.result != CUPTI_SUCCESS) {
    Note("counters.status",
         ExplainCupti(r != CUPTI_SUCCESS ? "cuptiRangeProfilerPopRange" : "cuptiRangeProfilerStop",
                      r != CUPTI_SUCCESS ? r : stop.result));
    c.failed = true;
    return release;
  }
  if (!keep) return release;
  planner_->AddRegionPass(c.plan, region.name, region.path);
  if (stop.all_passes_submitted) {
    const uint64_t complete = planner_->stats().sets_complete;
    DecodeSet(c);
    planner_->EndRegionSet(planner_->stats().sets_complete > complete);
  }
  return release;
}

}  // namespace cuscope::collect
