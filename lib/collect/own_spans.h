// cuscope's own intervals (lib/model/own_time.h) as the collector's parts record them:
// timed on the monotonic clock (elapsed.h) like the rest of their accounting, put on
// CUPTI's clock (the records') when recorded, with the calling thread's id as CUPTI's
// records give it.
#ifndef CUSCOPE_LIB_COLLECT_OWN_SPANS_H_
#define CUSCOPE_LIB_COLLECT_OWN_SPANS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "lib/collect/counter_outbox.h"
#include "lib/collect/planner.h"
#include "lib/collect/profiler_contexts.h"
#include "lib/model/own_time.h"

namespace cuscope::collect {

// Counter strategies' intervals shorter than this are not recorded (as held spans,
// HeldTimer::kRecordedHeldNs).
inline constexpr uint64_t kRecordedOwnNs = 20000;
// Work on cuscope's own threads (GPU-metrics decodes, profile flushes) is recorded
// from this long: it runs every few milliseconds.
inline constexpr uint64_t kRecordedBackgroundNs = 1000000;

// An interval of `kind` from `mono_start_ns` (MonotonicNs) to now on the calling
// thread, on CUPTI's clock; nullopt when shorter than `min_ns` or when CUPTI's clock
// cannot be read.
std::optional<model::OwnInterval> OwnSpanUntilNow(model::OwnKind kind, uint64_t mono_start_ns,
                                                  uint64_t min_ns);

// A counter strategy's interval of `kind` on context `c` from `mono_start_ns` to now,
// involving `launches` (consecutive launches on the context; empty for none), handed
// to `outbox` when at least kRecordedOwnNs long.
void RecordCounterSpan(CounterOutbox& outbox, model::OwnKind kind, uint64_t mono_start_ns,
                       const ProfiledContext& c, const std::vector<Launch>& launches);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_OWN_SPANS_H_
