// The activity tracer: enables CUPTI activity kinds, hands CUPTI buffers from a
// bounded pool, converts completed buffers into model records and passes each batch
// to a sink (the profile writer).
#ifndef CUSCOPE_LIB_COLLECT_ACTIVITY_H_
#define CUSCOPE_LIB_COLLECT_ACTIVITY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/convert.h"
#include "lib/inject/config.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

struct ActivityStats {
  uint64_t buffers_allocated = 0;
  uint64_t buffers_completed = 0;
  uint64_t buffers_refused = 0;   // requests refused at the pool cap
  // Buffers handed to CUPTI and never given back, even by the final forced flush:
  // another CUPTI client (torch.profiler, nsys) replaced the activity callbacks and
  // took the records from then on.
  uint64_t buffers_outstanding = 0;
  // The end-of-run probe (one recorded cuDriverGetVersion call) did not come back:
  // another CUPTI client replaced cuscope's activity callbacks or disabled its
  // kinds, so records after that went to it or were never made.
  bool records_taken = false;
  uint64_t last_api_end_ns = 0;   // end of the latest API call recorded
  uint64_t dropped_records = 0;   // as CUPTI counted them
  uint64_t internal_kernels = 0;
  uint64_t records = 0;
};

class ActivityCollector {
 public:
  // Called with each batch of new records (under the collector's lock); the batch's
  // records are cleared after it returns, its strings and devices kept.
  using Sink = std::function<void(const model::Profile& batch, bool devices_changed)>;

  // Only one collector can be started at a time (CUPTI's callbacks are global).
  static absl::Status Start(const config::Config& config, Sink sink);
  // Flushes CUPTI's buffers into the sink. `forced` also flushes buffers in use.
  static void Flush(bool forced);
  // From cuscope's flush thread, each period: Flush with one probe record through
  // the current callbacks (then forced); when the probe does not come back, another
  // CUPTI client took the records (ActivityStats::records_taken). Returns false, having
  // done nothing, while the periodic flush is held off (unless `even_if_held`).
  static bool PeriodicFlush(bool even_if_held);
  // Region counters: hold the periodic flush off while a region instance is measured
  // (true waits up to 20 ms for a flush in progress to end): a forced CUPTI flush
  // inside the range shows in its span.
  static void HoldPeriodicFlush(bool hold);
  // Flushes, disables every kind and closes ranges left open at `end_ns`.
  static void Stop(uint64_t end_ns);
  static bool running();
  // Capture control: disable / re-enable the GPU-side kinds (kernels, copies,
  // memsets, syncs, overhead); NVTX ranges and API calls stay recorded.
  static void Pause();
  static void Resume();
  // Counters: keep the GPU-side kinds off (true) while a region is measured with
  // instruction counters, whatever capture control says; false gives them back to it.
  static void HoldGpuKinds(bool hold);
  static ActivityStats stats();

 struct State;  // defined in activity.cc

 private:
  static void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI OnBufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer,
                                         size_t size, size_t valid_size);
  static void EmitBatch(State* s, bool devices_changed);
  // Whether records still reach cuscope (activity.cc says how).
  struct ProbeMark;
  static ProbeMark RecordProbe(State* s);
  static bool RecordsArrived(State* s, const ProbeMark& mark);
};

// The CUDA API calls recorded by default (launches, copies, memsets, allocations,
// synchronizations, graph launches), by name prefix.
bool IsDefaultRuntimeApi(const char* name);
bool IsDefaultDriverApi(const char* name);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_ACTIVITY_H_
