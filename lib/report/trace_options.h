// What to keep in an exported trace (`cuscope export` --from, --to, --kernels,
// --regions, --aggregate, --gpu-metrics-bin): a time window, a kernel and a region
// filter, runs of tiny kernels merged into one event, and GPU metric samples combined
// over bins. The default keeps everything.
#ifndef CUSCOPE_LIB_REPORT_TRACE_OPTIONS_H_
#define CUSCOPE_LIB_REPORT_TRACE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cuscope::report {

struct TraceOptions {
  // The window, in ns after the run's start (RunInfo::start_ns): an event is kept
  // when it overlaps it.
  std::optional<uint64_t> from_ns, to_ns;
  // RE2 patterns (lib/model/pattern.h), "" for all. kernels: only kernels whose
  // name matches (with the calls that launched them); copies and sets stay.
  // regions: only what happens while a range whose name matches is open (host
  // events overlapping it, GPU work launched inside it).
  std::string kernels, regions;
  // Consecutive kernels on one stream each shorter than this become one event
  // with their count (0: off).
  uint64_t aggregate_below_ns = 0;
  // GPU metric samples of a device combined over bins this long, one counter value per
  // bin and series (0: one per sample). A bin opens at its first sample and takes the
  // samples that start less than this after it.
  uint64_t sample_bin_ns = 0;

  bool keeps_everything() const {
    return !from_ns && !to_ns && kernels.empty() && regions.empty() && aggregate_below_ns == 0 &&
           sample_bin_ns == 0;
  }
};

// A duration: a number (decimals allowed) with a unit, ns, us, ms or s ("1.5ms",
// "200us", "250000ns", "2s"). InvalidArgument names the text and what is accepted.
absl::StatusOr<uint64_t> ParseTraceDuration(absl::string_view text);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_OPTIONS_H_
