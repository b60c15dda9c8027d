// Capture control and region tracking. Capture: record only between
// cudaProfilerStart and cudaProfilerStop, or only inside the first N instances of a
// region (NVTX range or cuscope scope) whose name matches a regular expression.
// Outside, the tracer's GPU-side kinds are off (NVTX ranges stay recorded, so every
// region instance shows in the report, with kernels only where capture was on).
// Region tracking: each thread's stack of open regions, for counters limited to
// regions and for region counters.
#ifndef CUSCOPE_LIB_COLLECT_CAPTURE_H_
#define CUSCOPE_LIB_COLLECT_CAPTURE_H_

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/callbacks.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/options.h"
#include "lib/model/pattern.h"

namespace cuscope::collect {

class RegionTracker final : public RegionStack {
 public:
  // `kinds`: paused outside capture windows; `observer`: told of every region
  // boundary (region counters); `callbacks`: NVTX and cudaProfilerStart/Stop.
  RegionTracker(GpuKindControl* kinds, RegionObserver* observer, CallbackSubscription* callbacks)
      : kinds_(kinds), observer_(observer), callbacks_(callbacks) {}

  // Starts capture control for `options.capture`, and region tracking when capture
  // is by region or counters are limited to regions. No-op otherwise. For capture,
  // the tracer must have been started paused.
  absl::Status Start(const CollectOptions& options);
  void Stop();
  // Region boundaries from cuscope's own scopes (NVTX ones come through callbacks).
  void OnRangePush(const char* name);
  void OnRangePop();
  // NVTX and profiler API callbacks (from the collector's CUPTI callback).
  void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  // Capture windows opened so far.
  uint64_t WindowsOpened();
  // The calling thread's open regions, outermost first (tracked while capture by
  // region or counters by region is on). Thread-local: one tracker per process.
  const std::vector<std::string>& ThreadRegions() const override;

 private:
  void Push(const char* name);
  void Pop();
  void Open() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Close() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  GpuKindControl* const kinds_;
  RegionObserver* const observer_;
  CallbackSubscription* const callbacks_;
  std::atomic<bool> active_{false};
  // Set before the callbacks are enabled; read without the lock.
  std::atomic<CaptureMode> mode_{CaptureMode::kAll};

  // Capture windows. Taken on application threads (NVTX and scope pushes and pops,
  // cudaProfilerStart/Stop); released before the counter sampler is told of a
  // boundary. Held across the tracer's kind switches (the tracer's kinds lock, a leaf).
  absl::Mutex mu_;
  // Compiled at Start; its answer per region name is kept (each name matched once).
  std::optional<model::CachedPattern> range_ ABSL_GUARDED_BY(mu_);
  uint64_t limit_ ABSL_GUARDED_BY(mu_) = 0;      // instances to capture; 0 = all
  uint64_t instances_ ABSL_GUARDED_BY(mu_) = 0;  // matching instances seen
  uint64_t windows_ ABSL_GUARDED_BY(mu_) = 0;
  bool open_ ABSL_GUARDED_BY(mu_) = false;  // capturing now
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_CAPTURE_H_
