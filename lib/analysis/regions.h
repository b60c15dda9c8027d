// Regions: NVTX ranges and cuscope scopes as units of the report.
// A kernel belongs to a region when the API call that launched it (matched by
// correlation id) ran on the region's thread inside the region's span.
#ifndef CUSCOPE_LIB_ANALYSIS_REGIONS_H_
#define CUSCOPE_LIB_ANALYSIS_REGIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/api_index.h"
#include "lib/analysis/summary.h"
#include "lib/analysis/torch_attribution.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

struct RegionTopKernel {
  std::string name;
  uint64_t count = 0;
  uint64_t total_ns = 0;
};

struct RegionSummaryRow {
  std::string path;    // "step/forward/attention": names of the enclosing ranges
  std::string domain;  // NVTX domain, "" for the default one
  // Wall (CPU-side) duration of the region instances, each less cuscope's own time in
  // it (own_time.h); `own_ns`: the time left out, over all instances.
  DurationStats stats;
  uint64_t own_ns = 0;
  uint64_t kernel_count = 0;                 // kernels launched inside (all instances)
  uint64_t gpu_time_ns = 0;                  // sum of those kernels' durations
  std::vector<RegionTopKernel> top_kernels;  // by total time, at most 5
  // Where its instances' site is in the source, "file:line" (model::SourceLocationLabel);
  // "" when none has a location. Instances from N more sites add " (+N)".
  std::string location;
};

// "path", or "[domain] path" for a domain other than NVTX's default: how reports
// name a region.
std::string RegionLabel(const RegionSummaryRow& row);

// Rows ranked by total wall time, descending. Marks (zero-length) are left out.
std::vector<RegionSummaryRow> SummarizeRegions(const model::Profile& profile);

// Which range each kernel was launched in: the one association shared by
// SummarizeRegions and the Chrome trace's gpu_user_annotation events.
//
// Ranges nest by time containment on their (process, thread); `depth` is not
// trusted, so NVTX start/end ranges nest too (on the thread that started them).
// A kernel is launched in a range when the API call with the kernel's correlation
// id ran on the range's thread with its start in [range.start, range.end]. The
// innermost such range is recorded; the enclosing ones follow from `range_parent`.
// PyTorch's op and Python line ranges (torch_ranges.h) are not regions. A backward
// kernel (torch_attribution.h) launched in no region of its own thread (autograd's)
// is in the regions open, at its launch, on the thread of its forward op: the
// thread that called backward.
// Cost: O((R + K) log R) plus the nesting depth per kernel.
struct KernelRangeAttribution {
  static constexpr uint32_t kNone = 0xffffffffu;
  // Per profile.ranges index: the innermost enclosing region, kNone at the top
  // and for ranges that are not regions.
  std::vector<uint32_t> range_parent;
  // Per profile.ranges index: 1 when the range is a region (not a mark, start set,
  // end after start).
  std::vector<uint8_t> range_is_region;
  // Indices of the regions, thread by thread in (start ascending, end descending)
  // order: a region always comes after the regions that enclose it.
  std::vector<uint32_t> order;
  // Per profile.kernels index: the innermost region it was launched in, or kNone.
  std::vector<uint32_t> kernel_range;
  // Each kernel's op and Python line, each range's role.
  TorchAttribution torch;
};
KernelRangeAttribution AttributeKernelsToRanges(const model::Profile& profile);
// The same, reusing an index of the profile's API calls.
KernelRangeAttribution AttributeKernelsToRanges(const model::Profile& profile,
                                                const ApiByCorrelation& apis);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_REGIONS_H_
