// The timeline overview of the HTML report: each (device, stream) lane's busy time
// aggregated into at most `bins` equal bins over the profile's GPU span, so that the
// page's size depends on the streams and bins, not on the number of kernels (a run of
// 1M kernels gives the same few hundred KB as one of 1k). docs/reports.md says how
// the page zooms within these bins.
#ifndef CUSCOPE_LIB_REPORT_HTML_TIMELINE_H_
#define CUSCOPE_LIB_REPORT_HTML_TIMELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::report {

inline constexpr uint32_t kTimelineBins = 4000;

// One non-empty bin of a lane: the kernel and the copy/memset busy time in it (ns,
// at most the bin's width each), and the kernel that covers most of the bin (an index
// into TimelineOverview::names, -1 when it holds no kernel).
struct TimelineBin {
  uint32_t index = 0;
  uint64_t kernel_ns = 0, memory_ns = 0;
  int32_t top = -1;
};

struct TimelineLane {
  uint32_t device_id = 0, stream_id = 0;
  uint64_t kernels = 0, memory_ops = 0;  // records drawn in the lane
  uint64_t busy_ns = 0;                  // sum over its bins of kernel + memory time
  std::vector<TimelineBin> bins;         // non-empty bins only, by index
};

struct TimelineOverview {
  uint64_t start_ns = 0, end_ns = 0;  // the GPU span (CUPTI clock)
  uint64_t bin_ns = 1;                // width of one bin
  uint32_t bin_count = 0;             // bins over the span (at most the requested)
  std::vector<TimelineLane> lanes;    // by device, then stream
  std::vector<std::string> names;     // kernel names the bins refer to
};

// Kernels, memcpys and memsets with usable times; an empty overview when there are none.
TimelineOverview BuildTimelineOverview(const model::Profile& profile,
                                       uint32_t bins = kTimelineBins);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_HTML_TIMELINE_H_
