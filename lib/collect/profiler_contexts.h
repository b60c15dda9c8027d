// The Range Profiler of each CUDA context, shared by every counter strategy: CUPTI
// allows one Range Profiler configuration per context at a time (and switching costs
// tens of milliseconds), so one owner holds each context's profiler object, counter
// data image and configuration state for the whole process. A strategy asks for a
// context set up for its session (Acquire); what it sets up (metrics, the image's
// size, the first configuration) is the session's (ContextSetup, counter_run.h).
//
// Kept across sessions: the profiler is initialized once per process, and a context
// whose Disable failed is kept apart with its image, which CUPTI may still write.
//
// Not thread-safe: used under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_PROFILER_CONTEXTS_H_
#define CUSCOPE_LIB_COLLECT_PROFILER_CONTEXTS_H_

#include <cuda.h>
#include <cupti_result.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/collect/image_ranges.h"
#include "lib/collect/range_profiler.h"

namespace cuscope::collect {

// One CUDA context's Range Profiler and the state of its counter data image.
struct ProfiledContext {
  uint32_t device_id = 0;
  CUcontext ctx = nullptr;
  RangeProfiler profiler;
  size_t max_ranges = 1;
  ImageRanges image;        // the ranges its counter data holds
  bool configured = false;  // SetConfig for a first pass made, no set run since
  bool sizing_off = false;  // an image sized to its set dropped ranges
  bool failed = false;      // given up for this session
  // CUPTI's id of the context (records' context_id), from its launches; and when the
  // Start of its open window began (MonotonicNs): for cuscope's own intervals.
  uint32_t context_uid = 0;
  uint64_t window_start_ns = 0;
};

// How a session sets a context up at its first use, in this order after the profiler
// is initialized: the metric configuration (once per session), Enable, the image's
// first size, Configure.
class ContextSetup {
 public:
  virtual ~ContextSetup() = default;
  // Where the setup's time is added (CounterStats::setup_ns).
  virtual uint64_t* SetupNs() = 0;
  // The session's metric configuration for a context on `device_id`. False: the
  // notes say why.
  virtual bool Metrics(uint32_t device_id) = 0;
  // The counter data image's ranges to begin with.
  virtual size_t Ranges() = 0;
  // After Enable: the image and the configuration, if the strategy wants them now.
  virtual bool Configure(ProfiledContext& c) = 0;
  // A CUPTI call of the setup failed (the note).
  virtual void Failed(const char* call, CUptiResult r) = 0;
};

class ProfilerContexts {
 public:
  // The context set up for this session (at its first use), or nullptr when it
  // failed (now or before in this session).
  ProfiledContext* Acquire(CUcontext ctx, ContextSetup& setup);
  // The context if it was acquired in this session, failed or not.
  ProfiledContext* Find(CUcontext ctx);
  // The end of a session: for each context with an enabled profiler, `end` (the
  // strategies' last calls on it), then Disable (its failure a note through
  // `disable_failed`); every context is failed from then on.
  void DisableAll(const std::function<void(ProfiledContext&)>& end,
                  const std::function<void(CUptiResult)>& disable_failed);
  // The start of a session: forgets the contexts. A profiler whose Disable failed at
  // the last session is tried again; if it fails still, its context is kept apart.
  // Returns how many were kept so.
  size_t Clear();

 private:
  bool initialized_ = false;  // cuptiProfilerInitialize, once per process
  absl::flat_hash_map<CUcontext, std::unique_ptr<ProfiledContext>> contexts_;
  // Contexts whose profiler no Disable could end (kept: CUPTI may still use their image).
  std::vector<std::unique_ptr<ProfiledContext>> still_enabled_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_PROFILER_CONTEXTS_H_
