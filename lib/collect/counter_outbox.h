// What the counter strategies hand over to the profile: finished counter sets, the
// device metrics (peaks, clocks) of each device's first set, kernel records made from
// launches, the spans the strategies held the program's threads (overhead records)
// and their own intervals (kernel replays, windows, region counters: own_spans.h).
// Filled from the launch and region callbacks; emptied by Drain on CUPTI's buffer
// thread, under the tracer's batch lock.
//
// Thread-safe: one leaf lock, never held while another lock is taken.
#ifndef CUSCOPE_LIB_COLLECT_COUNTER_OUTBOX_H_
#define CUSCOPE_LIB_COLLECT_COUNTER_OUTBOX_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/held_phases.h"
#include "lib/collect/planner.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

// A finished counter set: its values in the order of the outbox's metric names.
struct PendingSet {
  uint32_t device_id = 0;
  Signature sig;
  model::CounterStrategy strategy = model::CounterStrategy::kKernelReplay;
  uint32_t passes = 0;
  std::vector<uint32_t> correlation_ids;
  std::vector<double> values;
};

// A kernel record made from a launch callback (CUPTI's was held off).
struct MadeKernel {
  uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  std::string name, mangled_name;
  model::Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
};

class CounterOutbox {
 public:
  // The names of the values of the sets to come (a session's metrics, as requested).
  void SetMetricNames(std::vector<std::string> names) ABSL_LOCKS_EXCLUDED(mu_);
  // A set; with `first_on_device`, its values are also the device's metrics.
  void AddSet(PendingSet set, bool first_on_device) ABSL_LOCKS_EXCLUDED(mu_);
  // A made record; false when the queue is full (no drain came for long).
  bool AddKernel(MadeKernel kernel) ABSL_LOCKS_EXCLUDED(mu_);
  // Held spans, in CUPTI's clock.
  void AddHeld(const std::vector<HeldSpan>& spans) ABSL_LOCKS_EXCLUDED(mu_);
  // An interval of cuscope's own work (own_spans.h).
  void AddOwn(const model::OwnInterval& own) ABSL_LOCKS_EXCLUDED(mu_);
  // Moves everything into `batch`.
  void Drain(model::Profile* batch) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void DrainKernels(model::Profile* batch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DrainDeviceValues(model::Profile* batch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::vector<std::string> metrics_ ABSL_GUARDED_BY(mu_);  // names of the values
  std::vector<PendingSet> sets_ ABSL_GUARDED_BY(mu_);
  std::vector<MadeKernel> kernels_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<uint32_t, std::vector<double>>> device_values_ ABSL_GUARDED_BY(mu_);
  // Spans (CUPTI's clock) in which a strategy held the program's thread in a launch or
  // region callback: its setup on a context, a kernel replay's start, a rotate
  // window's start and stop. CUPTI starts timing an API call after the ENTER callbacks
  // and stops before the EXIT ones, so this time is in no API record: it is written
  // as overhead records (model::kCountersOverhead).
  std::vector<HeldSpan> held_ ABSL_GUARDED_BY(mu_);
  std::vector<model::OwnInterval> own_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTER_OUTBOX_H_
