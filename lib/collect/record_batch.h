// The batch of a session's records on their way to the profile: each completed CUPTI
// buffer is converted into it (RecordConverter), the drain sources add what they
// finished (counter sets, scopes, GPU samples), and the sink (the profile writer) gets
// it; then its records are cleared, its strings and devices kept. A write that took
// kRecordedBackgroundNs or more goes into the next batch as cuscope's own time
// (own_spans.h).
//
// Lock: one mutex (the batch, the converter and the sink together), taken on CUPTI's
// buffer thread, by flushes and by the records probe. Taken after RecordsProbe's
// lock. Taken under it, each a leaf: the drains' locks (CounterOutbox's, GpuSampler's
// mu_, the scopes' drain, registry and per-thread locks), the locks the converter
// reaches through MeasuredLaunches (MeasuredTable's for Classify, IdleSignals' for
// KernelRecord) and the sink's (inject::ProfileSink's mu_).
#ifndef CUSCOPE_LIB_COLLECT_RECORD_BATCH_H_
#define CUSCOPE_LIB_COLLECT_RECORD_BATCH_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/convert.h"
#include "lib/collect/interfaces.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

class RecordBatch {
 public:
  // Called with each batch of new records, under the batch's lock; the records are
  // cleared after it returns, the strings and devices kept.
  using Sink = std::function<void(const model::Profile& batch, bool devices_changed)>;

  // `drains` add their finished records to each batch before the sink sees it, in
  // this order; `measured` marks kernels whose counters were measured.
  RecordBatch(std::vector<DrainSource*> drains, MeasuredLaunches* measured)
      : drains_(std::move(drains)), measured_(measured) {}

  // A new session: an empty batch, a new converter (asking `measured` only when
  // `counters_enabled`), and `sink`. Until the first Reset the batch takes nothing.
  void Reset(Sink sink, bool counters_enabled);
  // CUPTI's buffer thread: converts the `valid_size` bytes of records in `buffer` and
  // emits the batch.
  void AddBuffer(uint8_t* buffer, size_t valid_size);
  // Emits the batch (what the drains finished, even with no buffer) if `running` is
  // still true once the batch's lock is held.
  void EmitIfRunning(const std::atomic<bool>& running);
  // The end of a session: ranges left open closed at `end_ns`, then the batch emitted.
  void CloseAndEmit(uint64_t end_ns);

  // The records probe: cuDriverGetVersion records from `after_ns` on are probes.
  // Returns the probe records counted so far, nullopt before the first Reset.
  std::optional<uint64_t> MarkProbes(uint64_t after_ns);
  // Whether at least `count` probe records have come (false before the first Reset).
  bool ProbesAtLeast(uint64_t count);

  // The converter's counts (zero before the first Reset).
  ConvertStats stats();

 private:
  // Adds what the drain sources finished and hands the batch to the sink when it
  // holds records (or the devices changed); then clears its records.
  void Emit(bool devices_changed) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::vector<DrainSource*> drains_;
  MeasuredLaunches* const measured_;
  absl::Mutex mu_;
  Sink sink_ ABSL_GUARDED_BY(mu_);
  model::Profile batch_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<RecordConverter> converter_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_RECORD_BATCH_H_
