// The activity tracer of a session: enables CUPTI's activity kinds, lends CUPTI
// buffers from a bounded pool and passes each completed buffer to the record batch,
// which converts it and hands it, with what the drain sources finished (counter sets,
// scopes), to a sink (the profile writer). It composes one object per concern:
//
//   BufferPool      (buffer_pool.h)    the bounded pool of CUPTI buffers
//   RecordBatch     (record_batch.h)   converter, drains and sink
//   RecordsProbe    (records_probe.h)  the periodic flush, and whether another CUPTI
//                                      client took the records
//   GpuKindSwitch   (gpu_kinds.h)      the enabled kinds, GPU-side kinds on and off
//   DefaultApiCalls (api_calls.h)      the API calls recorded by default
//
// Lock order (each arrow: taken before; the tracer holds no lock of its own):
//
//   RecordsProbe mu_ -> RecordBatch mu_ -> the drains' locks (CounterOutbox,
//                                          GpuSampler, scopes), MeasuredTable's and
//                                          IdleSignals' (asked by the converter),
//                                          the sink's (ProfileSink mu_)
//   RecordsProbe mu_ -> GpuKindSwitch mu_  (Stop disables the kinds)
//   BufferPool mu_, GpuKindSwitch mu_: leaves
//
// CUPTI's buffer thread takes RecordBatch mu_ and then, released, BufferPool mu_: one
// lock at a time of the tracer's.
#ifndef CUSCOPE_LIB_COLLECT_ACTIVITY_H_
#define CUSCOPE_LIB_COLLECT_ACTIVITY_H_

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "lib/collect/api_calls.h"
#include "lib/collect/buffer_pool.h"
#include "lib/collect/gpu_kinds.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/options.h"
#include "lib/collect/record_batch.h"
#include "lib/collect/records_probe.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

struct ActivityStats {
  uint64_t buffers_allocated = 0;  // the most that existed at once (BufferPool::Counts::most)
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
  // Called with each batch of new records (under the batch's lock); the batch's
  // records are cleared after it returns, its strings and devices kept.
  using Sink = RecordBatch::Sink;

  // `drains` add their finished records to each batch before the sink sees it, in
  // this order; `measured` marks kernels whose counters were measured (asked only
  // when counters are on).
  ActivityTracer(std::vector<DrainSource*> drains, MeasuredLaunches* measured)
      : batch_(std::move(drains), measured), probe_(&pool_, &batch_) {}

  // Only one tracer can be started at a time (CUPTI's callbacks are global).
  absl::Status Start(const CollectOptions& options, Sink sink);
  // Flushes CUPTI's buffers into the sink. `forced` also flushes buffers in use.
  void Flush(bool forced);
  // From cuscope's flush thread, each period: Flush (not forced) with one probe record
  // through the current callbacks, kept pending until it comes back; Stop decides
  // whether another CUPTI client took the records (ActivityStats::records_taken).
  // Returns false, having done nothing, while the periodic flush is held off (unless
  // `even_if_held`).
  bool PeriodicFlush(bool even_if_held);
  // Flushes, disables every kind, closes ranges left open at `end_ns` and frees the
  // buffers waiting in the pool.
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
  bool KernelRecordsHeldOff() const override { return kinds_.KernelRecordsHeldOff(); }
  void HoldGpuKinds(bool hold) override;
  void HoldPeriodicFlush(bool hold) override { probe_.HoldPeriodicFlush(hold); }
  void FlushAfterReplay() override;
  bool RecordsTaken() const override { return probe_.records_taken(); }

 private:
  static void CUPTIAPI OnBufferRequested(uint8_t** buffer, size_t* size, size_t* max_records);
  static void CUPTIAPI OnBufferCompleted(CUcontext ctx, uint32_t stream, uint8_t* buffer,
                                         size_t size, size_t valid_size);
  absl::Status EnableKinds(const CollectOptions& options);

  std::atomic<bool> running_{false};
  std::atomic<bool> started_once_{false};
  BufferPool pool_;
  RecordBatch batch_;
  RecordsProbe probe_;
  GpuKindSwitch kinds_;
  DefaultApiCalls api_calls_;  // Start and Stop only (the session serializes them)
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_ACTIVITY_H_
