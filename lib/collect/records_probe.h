// Whether activity records still reach cuscope, and the periodic flush that checks.
//
// Another CUPTI client (torch.profiler's Kineto, nsys) can register its own buffer
// callbacks or disable the kinds: CUPTI keeps one set of callbacks per process, so
// cuscope gets nothing from then on and no error says so. The probe is one recorded
// cuDriverGetVersion call that must come back through cuscope's buffers (the record
// batch counts such records from the probe's time on), or a buffer handed back that
// cuscope's pool never lent.
//
// While the program runs (cuscope's flush thread, PeriodicFlush) the probe goes
// through whatever callbacks are registered. Those flushes are never forced: a forced
// flush hands over the records of kernels still queued or running with start and end
// 0, while an unforced one hands over only buffers whose records are all complete, so
// a probe can stay out for a while (a kernel running for seconds). With no API calls
// recorded (--api=none) no probe is made: its record does not come back in such a run
// (docs/validation.md), and a buffer cuscope's pool never lent still shows a takeover.
// A probe stays pending until it comes back (no new probe meanwhile), and Stop decides:
// the pending probe and Stop's own must both have come back. At Stop, cuscope first
// takes the callbacks back and only then records and flushes: at exit another client's
// callbacks may belong to objects already destroyed (Kineto's singletons are destroyed
// before cuscope's atexit handler runs).
//
// Lock: one mutex, one probe at a time (the flush thread's and Stop's). Taken before
// the record batch's lock and the GPU kind switch's lock (Stop runs its steps under
// it); the buffer pool's counts are read lock-free. HoldPeriodicFlush takes no lock:
// it runs inside CUPTI's NVTX callback while a flush may run inside
// cuptiActivityFlushAll.
#ifndef CUSCOPE_LIB_COLLECT_RECORDS_PROBE_H_
#define CUSCOPE_LIB_COLLECT_RECORDS_PROBE_H_

#include <atomic>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/buffer_pool.h"
#include "lib/collect/options.h"
#include "lib/collect/record_batch.h"

namespace cuscope::collect {

class RecordsProbe {
 public:
  // Reads the counts of `pool` and the probe records of `batch`; both outlive it.
  RecordsProbe(const BufferPool* pool, RecordBatch* batch) : pool_(pool), batch_(batch) {}

  // A new session recording API calls as `api` says (the probe's own call is switched
  // off again after it unless every call is recorded): nothing pending, nothing taken.
  void Reset(ApiRecords api);

  // From cuscope's flush thread, each period, while `running`: `flush` (an unforced
  // flush) with one probe record made before it, kept pending until it comes back.
  // Returns false, having done nothing, while the periodic flush is held off (unless
  // `even_if_held`); true otherwise (also when not running).
  bool PeriodicFlush(bool even_if_held, const std::atomic<bool>& running,
                     absl::FunctionRef<void()> flush);
  // Region counters: hold the periodic flush off (true) while a region instance is
  // measured; true waits up to 20 ms, without a lock, for a flush in progress to end.
  void HoldPeriodicFlush(bool hold);

  // The end of a session, under the probe's lock, in this order: `take_back` (register
  // cuscope's buffer callbacks again), a probe record, `stop_and_flush` (disable the
  // kinds and calls, forced flush), the decision whether the records were taken, then
  // `finish` (close the batch).
  void Stop(absl::FunctionRef<void()> take_back, absl::FunctionRef<void()> stop_and_flush,
            absl::FunctionRef<void()> finish);

  // Whether a session recording API calls as `api` says makes probe records.
  static bool MakesProbes(ApiRecords api) { return api != ApiRecords::kNone; }

  // Another client took the records (decided by a periodic flush or Stop). Lock-free.
  bool records_taken() const { return records_taken_.load(); }

 private:
  struct Mark {
    bool made = false;                              // a probe record was made
    uint64_t after = 0;                             // probe records from this time on
    uint64_t probes = 0, foreign = 0, refused = 0;  // counts before it
  };
  // Makes a probe record. `pending_out`: the flush thread's probe is still out (probe
  // records count from its time on).
  Mark Record(bool pending_out) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After a flush: `count` probes made from `mark` on came back.
  bool Arrived(const Mark& mark, uint64_t count);

  const BufferPool* const pool_;
  RecordBatch* const batch_;
  absl::Mutex mu_;
  ApiRecords api_ ABSL_GUARDED_BY(mu_) = ApiRecords::kDefault;
  Mark pending_ ABSL_GUARDED_BY(mu_);  // the flush thread's, not yet back
  std::atomic<bool> held_{false};      // HoldPeriodicFlush
  std::atomic<bool> busy_{false};      // a PeriodicFlush is running
  std::atomic<bool> records_taken_{false};
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_RECORDS_PROBE_H_
