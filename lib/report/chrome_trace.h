// Chrome trace (Trace Event Format) export that opens in Perfetto UI and in
// Holistic Trace Analysis, following Kineto's conventions: the writer of a
// TraceView (lib/report/trace_view.h), which says what the events are. Streamed
// to the file, never built in memory.
#ifndef CUSCOPE_LIB_REPORT_CHROME_TRACE_H_
#define CUSCOPE_LIB_REPORT_CHROME_TRACE_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/model/profile.h"
#include "lib/report/rank_merge.h"
#include "lib/report/trace_view.h"

namespace cuscope::report {

struct ChromeTraceStats {
  uint64_t events = 0;  // trace events written (complete, flow, counter and metadata)
};

// Writes the view's trace to `path` ("-" for stdout; gzip-compressed when it ends in
// ".gz") or, uncompressed, to an open stream.
absl::Status WriteChromeTrace(const TraceView& view, const std::string& path,
                              ChromeTraceStats* stats = nullptr);
absl::Status WriteChromeTrace(const TraceView& view, std::FILE* out,
                              ChromeTraceStats* stats = nullptr);

// A merged trace of several ranks' profiles (`cuscope export A.sqlite B.sqlite`; the
// ranks and their clock: rank_merge.h). Rank r's processes get pid + r * kRankPidStride
// (Linux pids stay below 2^22), so rank 0 keeps its own pids; the CUPTI overhead
// pseudo-process (-1) becomes r * stride - 1.
inline constexpr int64_t kRankPidStride = 10'000'000;

// Writes the ranks' traces, by rank, as one Chrome trace: each rank's processes named
// "rank N: ..." and sorted by rank, its flow ids made distinct (RankFlowId), and its
// timestamps on the common clock (RankClock; the merged baseTimeNanoseconds is the
// earliest rank's). The header lists every rank's devices once; distributedInfo holds
// the lowest rank, the backend, and world_size = the number of ranks. Not for HTA,
// which reads one file per rank.
absl::Status WriteMergedChromeTrace(const std::vector<RankTrace>& ranks, const std::string& path,
                                    ChromeTraceStats* stats = nullptr);
absl::Status WriteMergedChromeTrace(const std::vector<RankTrace>& ranks, std::FILE* out,
                                    ChromeTraceStats* stats = nullptr);

// The same for a profile: analyses its counters and builds the view.
// Writes the trace to `path` ("-" for stdout).
absl::Status WriteChromeTrace(const model::Profile& profile, const std::string& path,
                              ChromeTraceStats* stats = nullptr);
// Writes the trace to an open stream.
absl::Status WriteChromeTrace(const model::Profile& profile, std::FILE* out,
                              ChromeTraceStats* stats = nullptr);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_CHROME_TRACE_H_
