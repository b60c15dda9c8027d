// Several ranks' traces in one file (`cuscope export A.sqlite B.sqlite`): which
// profile is which rank, and the common clock both merged writers (chrome_trace.h,
// perfetto_trace.h) put every rank's events on.
#ifndef CUSCOPE_LIB_REPORT_RANK_MERGE_H_
#define CUSCOPE_LIB_REPORT_RANK_MERGE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "lib/report/trace_view.h"

namespace cuscope::report {

// One rank's view and its rank (>= 0, distinct).
struct RankTrace {
  const TraceView* view = nullptr;
  int rank = 0;
};

// Sorts the ranks by rank; an error when a view is missing, a rank is negative or two
// profiles claim one rank.
absl::Status SortRanks(std::vector<RankTrace>& ranks);

// The merged trace's header, of sorted ranks: the lowest rank, world_size = the number
// of ranks, the first backend named, and the earliest origin known in Unix time
// (base_unix_ns, with that rank's origin_ns).
TraceHeader MergedHeader(const std::vector<RankTrace>& ranks);

// Where a rank's events go on the common clock: a timestamp of the rank's own trace
// (ns after its origin) plus how much later its origin is, in Unix time, than the
// merged one. A profile without a wall-clock start keeps its own timestamps.
class RankClock {
 public:
  RankClock(const TraceHeader& rank, const TraceHeader& merged)
      : origin_(rank.origin_ns),
        shift_(rank.base_unix_ns != 0 && merged.base_unix_ns != 0
                   ? static_cast<uint64_t>(rank.base_unix_ns - merged.base_unix_ns)
                   : 0) {}
  // A timestamp of the rank's profile (CUPTI clock), in ns after the merged origin.
  uint64_t operator()(uint64_t ns) const { return (ns > origin_ ? ns - origin_ : 0) + shift_; }

 private:
  uint64_t origin_, shift_;
};

// A rank's flow id made distinct from every other rank's: (rank << 32) | id.
inline uint64_t RankFlowId(int rank, uint64_t id) {
  return (uint64_t{static_cast<uint32_t>(rank)} << 32) | id;
}

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_RANK_MERGE_H_
