// cuscope's own intervals in a trace (analysis::OwnIntervals: kernel replays, counter
// windows, region counters, GPU-metrics decodes, profile flushes): slices of category
// "cuscope" on a pseudo-process of their own, named "cuscope", one thread per thread
// that did the work or was held, apart from the program's threads and from CUPTI's
// overhead.
#ifndef CUSCOPE_LIB_REPORT_TRACE_OWN_H_
#define CUSCOPE_LIB_REPORT_TRACE_OWN_H_

#include <cstdint>
#include <vector>

#include "lib/model/profile.h"
#include "lib/report/trace_event.h"
#include "lib/report/trace_filter.h"

namespace cuscope::report {

// The pseudo-process of cuscope's own intervals.
inline constexpr int64_t kTraceOwnPid = -2;
// Its sort index: after the GPUs and CUPTI's overhead (0x2000000), before the next
// rank's processes in a merged trace (0x4000000 apart).
inline constexpr int64_t kTraceOwnSortIndex = 0x3000000;

class TraceOwnTime {
 public:
  // `filter`: which intervals to keep (by span, as host events); null keeps all. The
  // profile and the filter must outlive the object.
  TraceOwnTime(const model::Profile& profile, const TraceFilter* filter);

  // The process's and its threads' names and sort indices, when it has an interval.
  void Metadata(TraceSink& sink, TraceEvent& e) const;
  // One slice per interval kept, using `e` as scratch.
  void Events(TraceSink& sink, TraceEvent& e) const;

 private:
  std::vector<model::OwnInterval> intervals_;  // kept, with usable times, by start
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_OWN_H_
