// Perfetto's native trace format (.pftrace: a protobuf `Trace`, the messages of
// lib/report/proto/perfetto_trace.proto) for traces too large for JSON: the
// writer of a TraceView (lib/report/trace_view.h), packet by packet; each track's
// slices are held (32 bytes a slice, 8 a flow) and written at the end, sorted so that
// Perfetto nests them as they nest: at equal starts the enclosing slice first.
//
// Tracks: one per host thread (a thread track under its process), one per GPU
// stream (under a track per GPU), the CUPTI overhead threads; each on its own packet
// sequence whose defaults name the track, so that events carry no track id. Slices
// are BEGIN/END pairs with interned names (and categories, but for kernels and
// runtime/driver calls, whose track says what they are); the CPU-to-GPU flows are
// varint flow ids (the correlation id) from the launch to the GPU op; a counter track per
// GPU holds the bandwidth of its copies and sets, and one per rate of the GPU metric
// samples ("GPU 0 SM active %", lib/report/trace_view.h) holds each sample's value from
// its start. Timestamps are ns after the same
// origin as the Chrome trace's. The Chrome trace's per-event arguments are not
// written: the .json trace has them.
#ifndef CUSCOPE_LIB_REPORT_PERFETTO_TRACE_H_
#define CUSCOPE_LIB_REPORT_PERFETTO_TRACE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/report/rank_merge.h"
#include "lib/report/trace_view.h"

namespace cuscope::report {

struct PerfettoTraceStats {
  uint64_t packets = 0;  // trace packets written
  uint64_t slices = 0;   // complete events written as BEGIN/END pairs
  uint64_t bytes = 0;    // bytes written (uncompressed)
};

// Writes the view's trace to `path` ("-" for stdout; gzip-compressed when it ends in
// ".gz": trace_processor and the Perfetto UI open both).
absl::Status WritePerfettoTrace(const TraceView& view, const std::string& path,
                                PerfettoTraceStats* stats = nullptr);

// Several ranks' profiles as one trace (`cuscope export A.sqlite B.sqlite --perfetto`),
// by rank: each rank's process, GPU and CUPTI overhead tracks named "rank N: ...", its
// flow ids made distinct and its timestamps on the common clock (rank_merge.h), as the
// merged Chrome trace has them. A process keeps its pid unless an earlier rank had a
// process of that pid (on another host): it then gets one above Linux's pid range.
absl::Status WriteMergedPerfettoTrace(std::vector<RankTrace> ranks, const std::string& path,
                                      PerfettoTraceStats* stats = nullptr);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_PERFETTO_TRACE_H_
