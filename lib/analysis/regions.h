// Regions: NVTX ranges and cuscope scopes as units of the report.
// A kernel belongs to a region when the API call that launched it (matched by
// correlation id) ran on the region's thread inside the region's span.
#ifndef CUSCOPE_LIB_ANALYSIS_REGIONS_H_
#define CUSCOPE_LIB_ANALYSIS_REGIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/summary.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

struct RegionTopKernel {
  std::string name;
  uint64_t count = 0;
  uint64_t total_ns = 0;
};

struct RegionSummaryRow {
  std::string path;         // "step/forward/attention": names of the enclosing ranges
  std::string domain;       // NVTX domain, "" for the default one
  DurationStats stats;      // wall (CPU-side) duration of the region instances
  uint64_t kernel_count = 0;   // kernels launched inside (all instances)
  uint64_t gpu_time_ns = 0;    // sum of those kernels' durations
  std::vector<RegionTopKernel> top_kernels;  // by total time, at most 5
};

// Rows ranked by total wall time, descending. Marks (zero-length) are left out.
std::vector<RegionSummaryRow> SummarizeRegions(const model::Profile& profile);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_REGIONS_H_
