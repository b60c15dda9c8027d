#include "lib/collect/profiler_contexts.h"

#include <utility>

#include "lib/collect/held_timer.h"

namespace cuscope::collect {

ProfiledContext* ProfilerContexts::Acquire(CUcontext ctx, ContextSetup& setup) {
  auto it = contexts_.find(ctx);
  if (it != contexts_.end()) return it->second->failed ? nullptr : it->second.get();
  Phase timed(HeldPhase::kSetup, setup.SetupNs());
  auto owned = std::make_unique<ProfiledContext>();
  ProfiledContext& c = *owned;
  contexts_[ctx] = std::move(owned);
  c.failed = true;  // until everything below succeeded
  c.device_id = DeviceOf(ctx);
  c.ctx = ctx;
  if (!initialized_) {
    CUptiResult r = InitializeProfiler();
    if (r != CUPTI_SUCCESS) {
      setup.Failed("cuptiProfilerInitialize", r);
      return nullptr;
    }
    initialized_ = true;
  }
  if (!setup.Metrics(c.device_id)) return nullptr;
  CUptiResult r = c.profiler.Enable(ctx);
  if (r != CUPTI_SUCCESS) {
    setup.Failed("cuptiRangeProfilerEnable", r);
    return nullptr;
  }
  c.max_ranges = setup.Ranges();
  c.image = ImageRanges(c.max_ranges);
  if (!setup.Configure(c)) return nullptr;
  c.failed = false;
  return &c;
}

ProfiledContext* ProfilerContexts::Find(CUcontext ctx) {
  auto it = contexts_.find(ctx);
  return it == contexts_.end() ? nullptr : it->second.get();
}

void ProfilerContexts::DisableAll(const std::function<void(ProfiledContext&)>& end,
                                  const std::function<void(CUptiResult)>& disable_failed) {
  for (auto& [ctx, c] : contexts_) {
    if (!c->profiler.enabled()) continue;
    end(*c);
    // Failed contexts too: a later session must be able to enable the profiler again.
    if (CUptiResult r = c->profiler.Disable(); r != CUPTI_SUCCESS) disable_failed(r);
    c->failed = true;
  }
}

size_t ProfilerContexts::Clear() {
  size_t kept = 0;
  for (auto& [ctx, c] : contexts_) {
    if (c->profiler.enabled() && c->profiler.Disable() != CUPTI_SUCCESS) {
      still_enabled_.push_back(std::move(c));
      ++kept;
    }
  }
  contexts_.clear();
  return kept;
}

}  // namespace cuscope::collect
