// Chrome trace (Trace Event Format) export that opens in Perfetto UI and in
// Holistic Trace Analysis, following Kineto's conventions: the writer of a
// TraceView (lib/report/trace_view.h), which says what the events are. Streamed
// to the file, never built in memory.
#ifndef CUSCOPE_LIB_REPORT_CHROME_TRACE_H_
#define CUSCOPE_LIB_REPORT_CHROME_TRACE_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/status/status.h"
#include "lib/model/profile.h"
#include "lib/report/trace_view.h"

namespace cuscope::report {

struct ChromeTraceStats {
  uint64_t events = 0;  // trace events written (complete, flow and metadata)
};

// Writes the view's trace to `path` ("-" for stdout; gzip-compressed when it ends in
// ".gz") or, uncompressed, to an open stream.
absl::Status WriteChromeTrace(const TraceView& view, const std::string& path,
                              ChromeTraceStats* stats = nullptr);
absl::Status WriteChromeTrace(const TraceView& view, std::FILE* out,
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
