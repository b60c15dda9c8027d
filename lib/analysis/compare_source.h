// Source hotspots of two profiles side by side (analysis/source_hotspots.h): for each
// kernel function sampled in both (by mangled name), its hot lines' shares of the
// function's samples before and after, and each line's top stall reason, so that a
// diff says what a change did to where warps wait.
#ifndef CUSCOPE_LIB_ANALYSIS_COMPARE_SOURCE_H_
#define CUSCOPE_LIB_ANALYSIS_COMPARE_SOURCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/source_hotspots.h"
#include "lib/model/pc_samples.h"

namespace cuscope::analysis {

struct SourceLineChange {
  std::string function;  // demangled
  std::string file;      // "" without line info (then pc_offset names the line)
  uint32_t line = 0;
  uint64_t pc_offset = 0;
  double base_pct = 0, next_pct = 0;  // of the function's samples; 0 where not sampled
  model::StallKind base_stall = model::StallKind::kOther;  // top stall; kOther: none
  model::StallKind next_stall = model::StallKind::kOther;
  bool base_has_stall = false, next_has_stall = false;
};

// Lines among either side's hottest (`top_lines` a function) of the functions sampled in
// both, by the larger change of share first (to 0.1 point), then by the larger share.
std::vector<SourceLineChange> CompareSource(const SourceHotspots& base, const SourceHotspots& next);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COMPARE_SOURCE_H_
