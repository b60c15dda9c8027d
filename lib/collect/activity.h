// The activity tracer: enables CUPTI activity kinds, hands CUPTI buffers from a
// bounded pool, converts completed buffers into model records, adds what the drain
// sources finished (counter sets, scopes) and passes each batch to a sink (the
// profile writer).
#ifndef CUSCOPE_LIB_COLLECT_ACTIVITY_H_
#define CUSCOPE_LIB_COLLECT_ACTIVITY_H_

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/convert.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/options.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

struct ActivityStats {
  uint64_t buffers_allocated = 0;
  uint64_t buffers_completed = 0;
  uint64_t buffers_refused = 0;  // requests refused at the pool cap
  // Buffers handed to CUPTI and never given back, even by the final forced flush:
  // another CUPTI client (torch.profiler, nsys) replaced the activity callbacks and
  // took the records from then on.
  uint64_t buffers_outstanding = 0;
  // The end-of-run probe (one recorded cuDriverGetVersion call) did not come back:
  // another CUPTI client replaced cuscope's activity callbacks or disabled its
  // kinds, so records after that went to it or were never made.
  bool records_taken = false;
  uint64_t last_api_end_ns = 0;  // end of the latest API call recorded
  uint64_t dropped_records = 0;  // as CUPTI counted them
  uint64_t internal_kernels = 0;
  uint64_t records = 0;
};

// The tracer of one session. CUPTI's buffer-request/complete callbacks take no
// userdata: they reach the tracer through one process-wide pointer (activity.cc),
// set by Start to the tracer started last and never cleared. The tracer is owned by
// the session's collector, which is never destroyed, so CUPTI may call back on its
// own thread until the process ends.
class ActivityTracer final : public GpuKindControl {
 public:
  // Called with each batch of new records (under the tracer's batch lock); the
  // batch's records are cleared after it returns, its strings and devices kept.
  using Sink = std::function<void(const model::Profile& batch, bool devices_changed)>;

  // `drains` add their finished records to each batch before the sink sees it, in
  // this order; `measured` marks kernels whose counters were measured (asked only
  // when counters are on).
  ActivityTracer(std::vector<DrainSource*> drains, MeasuredLaunches* measured)
      : drains_(std::move(drains)), measured_(measured) {}

  // Only one tracer can be started at a time (CUPTI's callbacks are global).
  absl::Status Start(const CollectOptions& options, Sink sink);
  // Flushes CUPTI's buffers into the sink. `forced` also flushes buffers in use.
  void Flush(bool forced);
  // From cuscope's flush thread, each period: Flush (not forced) with one probe record
  // through the current callbacks, kept pending until it comes back; Stop decides
  // whether another CUPTI client took the records (ActivityStats::records_taken). Returns false,
  // having done nothing, while the periodic flush is held off (unless `even_if_held`).
  bool PeriodicFlush(bool even_if_held);
  // Flushes, disables every kind and closes ranges left open at `end_ns`.
  void Stop(uint64_t end_ns);
  bool running() const { return running_.load(); }
  ActivityStats stats();

  // GpuKindControl. Capture control: disable / re-enable the GPU-side kinds
  // (kernels, copies, memsets, syncs, overhead); NVTX ranges and API calls stay
  // recorded. Counters: hold them off while a region is measured with instruction
  // counters; hold the periodic flush off while a region instance is measured (a
  // forced CUPTI flush inside the range shows in its span).
  void PauseGpuKinds() override;
  void ResumeGpuKinds() override;
  bool KernelRecordsHeldOff() const override { return kernels_held_off_.load(); }
  void HoldGpuKinds(bool hold) override;
  void HoldPeriodicFlush(bool hold) override;
  void FlushAfterReplay() override;
  bool RecordsTaken() const override { return records_taken_.load(); }

 private:
  struct ProbeMark {
    bool made = false;                              // a probe record was made
    uint64_t after = 0;                             // probe records from this time on
    uint64_t probes = 0, foreign = 0, refused = 0;  // counts before it
  };
  static void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI OnBufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer,
                                         size_t size, size_t valid_size);
  void BufferRequested(uint8_t** buffer, size_t* size);
  void BufferCompleted(uint8_t* buffer, size_t valid_size);
  absl::Status EnableKinds(const CollectOptions& options) ABSL_LOCKS_EXCLUDED(kinds_mu_);
  void EnableDefaultApiCalls();
  void ApplyGpuKinds() ABSL_EXCLUSIVE_LOCKS_REQUIRED(kinds_mu_);
  void EmitBatch(bool devices_changed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether records still reach cuscope (activity.cc says how).
  // `pending_out`: the flush thread's probe is still out (probe records count from its
  // time on).
  ProbeMark RecordProbe(bool pending_out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(probe_mu_);
  bool RecordsArrived(const ProbeMark& mark, uint64_t count);

  const std::vector<DrainSource*> drains_;
  MeasuredLaunches* const measured_;
  std::atomic<bool> running_{false};
  std::atomic<bool> started_once_{false};

  // One probe at a time (the flush thread's and Stop's).
  absl::Mutex probe_mu_ ABSL_ACQUIRED_BEFORE(mu_, kinds_mu_);
  std::atomic<bool> periodic_held_{false};  // HoldPeriodicFlush
  std::atomic<bool> periodic_busy_{false};  // a PeriodicFlush is running
  std::atomic<bool> records_taken_{false};
  ProbeMark pending_probe_ ABSL_GUARDED_BY(probe_mu_);  // the flush thread's, not yet back

  // The batch, the converter and the sink. Taken on CUPTI's buffer thread; the
  // drains' locks and the sink's lock come after it.
  absl::Mutex mu_;
  ApiRecords api_records_ = ApiRecords::kDefault;  // set by Start
  Sink sink_ ABSL_GUARDED_BY(mu_);
  model::Profile batch_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<RecordConverter> converter_ ABSL_GUARDED_BY(mu_);
  // API calls enabled by Start (Start and Stop only; the session serializes them).
  std::vector<uint32_t> runtime_cbids_, driver_cbids_;

  // The buffer pool. A leaf lock.
  absl::Mutex pool_mu_;
  std::vector<uint8_t*> free_buffers_ ABSL_GUARDED_BY(pool_mu_);
  // Every buffer cuscope allocated and has not freed, with its size: a buffer of an
  // older session's size that CUPTI hands back is freed, never lent out again as the
  // new size.
  absl::flat_hash_map<uint8_t*, size_t> own_buffers_ ABSL_GUARDED_BY(pool_mu_);
  uint64_t allocated_ ABSL_GUARDED_BY(pool_mu_) = 0;
  size_t buffer_bytes_ ABSL_GUARDED_BY(pool_mu_) = 0;  // size of every pooled buffer
  int max_buffers_ ABSL_GUARDED_BY(pool_mu_) = 0;
  std::atomic<uint64_t> refused_{0};
  std::atomic<uint64_t> completed_{0};
  std::atomic<uint64_t> foreign_{0};  // completed buffers another client had handed out

  // The GPU-side kinds are on when capture control has not paused them and counters
  // do not hold them off. A leaf lock (held across cuptiActivityEnable/Disable:
  // the switch and the flags must agree).
  absl::Mutex kinds_mu_;
  bool capture_paused_ ABSL_GUARDED_BY(kinds_mu_) = false;
  bool kernels_disabled_ ABSL_GUARDED_BY(kinds_mu_) = false;  // CUPTI took the switch off
  std::atomic<bool> kernels_held_off_{false};                 // KernelRecordsHeldOff
  bool counters_hold_ ABSL_GUARDED_BY(kinds_mu_) = false;
  bool gpu_kinds_on_ ABSL_GUARDED_BY(kinds_mu_) = true;
  // Kinds enabled by Start; Stop disables and clears them under the lock, as a
  // switch from another thread may be in progress.
  std::vector<CUpti_ActivityKind> enabled_ ABSL_GUARDED_BY(kinds_mu_);
};

// The CUDA API calls recorded by default (launches, copies, memsets, allocations,
// synchronizations, graph launches), by name prefix.
bool IsDefaultRuntimeApi(const char* name);
bool IsDefaultDriverApi(const char* name);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_ACTIVITY_H_
