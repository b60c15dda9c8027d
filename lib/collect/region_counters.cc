#include "lib/collect/region_counters.h"

#include <atomic>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/collect/driver.h"
#include "lib/collect/held_timer.h"
#include "lib/collect/own_spans.h"

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

bool RegionCounters::ReserveRegion(const std::vector<std::string>& stack, bool* hold) {
  if (region_ || reserved_) return false;
  if (!run_.planner().WantRegion(stack.back())) return false;
  reserved_ = true;  // this thread measures the next instance
  *hold = hold_kernels_;
  return true;
}

bool RegionCounters::StartRegion(const std::vector<std::string>& stack, bool hold, bool active) {
  reserved_ = false;
  std::string path = absl::StrJoin(stack, "/");
  CUcontext ctx = active ? CurrentContext() : nullptr;
  ProfiledContext* c = nullptr;
  if (!active) {
  } else if (ctx == nullptr) {
    run_.notes().Note(
        &model::RunNotes::counters_region_context,
        absl::StrFormat("region '%s' began on a thread without a CUDA context: not measured",
                        path));
  } else {
    c = run_.Acquire(ctx);
  }
  if (c == nullptr) return false;
  const uint64_t start_ns = MonotonicNs();
  Phase timed(HeldPhase::kPass, &run_.stats().measure_ns, start_ns);
  CUptiResult r = c->profiler.Start();
  if (r == CUPTI_SUCCESS) {
    r = c->profiler.PushRange(path.c_str());
    if (r != CUPTI_SUCCESS) c->profiler.Stop();
  }
  if (r != CUPTI_SUCCESS) {
    run_.notes().Note(&model::RunNotes::counters_status,
                      ExplainCupti("cuptiRangeProfilerStart/PushRange", r));
    c->failed = true;
    return false;
  }
  RecordCounterSpan(run_.outbox(), model::OwnKind::kRegionCounters, start_ns, *c, {});
  if (hold) {
    paused_tracing_ = true;
    run_.notes().Set(&model::RunNotes::counters_region_kernels,
                     "kernel records are off inside measured region instances (instruction "
                     "counters read 0 under user replay while kernels are traced)");
  }
  region_ = OpenRegion{c, stack.back(), std::move(path), stack.size(), std::this_thread::get_id()};
  return true;
}

bool RegionCounters::PopRegion(const std::vector<std::string>& stack, bool* release) {
  if (!region_ || region_->depth != stack.size() || region_->thread != std::this_thread::get_id()) {
    return false;
  }
  *release = CloseRegion(true);
  run_.Progress();
  return true;
}

void RegionCounters::Close() {
  if (!region_) return;
  run_.notes().Set(
      &model::RunNotes::counters_region_open,
      absl::StrFormat("region '%s' was still open at the end: its last instance is not measured",
                      region_->path));
  // The held GPU kinds stay off: the tracer stops next, and its Start resets them.
  CloseRegion(false);
}

bool RegionCounters::CloseRegion(bool keep) {
  if (!region_) return false;
  OpenRegion region = std::move(*region_);
  region_.reset();
  kinds_->HoldPeriodicFlush(false);  // a flag, no lock
  const bool release = paused_tracing_;
  paused_tracing_ = false;
  ProfiledContext& c = *region.context;
  Planner& planner = run_.planner();
  const uint64_t start_ns = MonotonicNs();
  Phase timed(HeldPhase::kPass, &planner.stats().measure_ns, start_ns);
  CUptiResult r = c.profiler.PopRange();
  RangeProfiler::StopResult stop = c.profiler.Stop();
  if (r != CUPTI_SUCCESS || stop.result != CUPTI_SUCCESS) {
    run_.notes().Note(
        &model::RunNotes::counters_status,
        ExplainCupti(r != CUPTI_SUCCESS ? "cuptiRangeProfilerPopRange" : "cuptiRangeProfilerStop",
                     r != CUPTI_SUCCESS ? r : stop.result));
    c.failed = true;
    return release;
  }
  if (keep) {
    ContextPlan& plan = plans_[c.ctx];
    planner.AddRegionPass(plan, region.name, region.path);
    if (stop.all_passes_submitted) {
      const uint64_t complete = planner.stats().sets_complete;
      sets_.DecodeSet(c, plan);
      planner.EndRegionSet(planner.stats().sets_complete > complete);
    }
  }
  // The Stop and the decoding held the region's thread (own_time.h).
  RecordCounterSpan(run_.outbox(), model::OwnKind::kRegionCounters, start_ns, c, {});
  return release;
}

}  // namespace cuscope::collect
