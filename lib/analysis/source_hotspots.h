// Source hotspots from PC samples (lib/model/pc_samples.h): per kernel function, the
// lines its sampled warps were on, with each line's share of the function's samples
// and why its warps waited (stall reasons grouped by model::StallKind). Pure: profile
// in, rows out. A function without line info is reported by PC offset
// (FunctionHotspots::has_lines false).
//
// A sample counts once: the "_not_issued" companion counters are left out. "Selected"
// samples (the warp issued) count as samples of the line, not as a stall.
#ifndef CUSCOPE_LIB_ANALYSIS_SOURCE_HOTSPOTS_H_
#define CUSCOPE_LIB_ANALYSIS_SOURCE_HOTSPOTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::analysis {

struct PcStallShare {
  model::StallKind kind = model::StallKind::kOther;
  uint64_t samples = 0;
  double pct = 0;  // of the samples of what it belongs to (a line, a function)
};

// One line of a function (or, without line info, one PC).
struct HotLine {
  std::string file;  // "" without line info
  uint32_t line = 0;
  uint64_t pc_offset = 0;  // without line info: the PC; else its first sampled PC
  uint64_t samples = 0;
  double pct = 0;                    // of the function's samples
  std::vector<PcStallShare> stalls;  // most samples first
  std::string text;                  // the line's text as kept in the profile; "" if none
};

struct FunctionHotspots {
  std::string name;     // demangled
  std::string mangled;  // as CUPTI named it
  uint64_t samples = 0;
  double pct = 0;  // of all samples of the functions reported and not
  bool has_lines = false;
  std::vector<HotLine> lines;        // most samples first, at most top_lines
  std::vector<PcStallShare> stalls;  // the whole function's, most samples first
  size_t line_count = 0;             // lines (or PCs) sampled, shown or not
};

struct SourceHotspots {
  uint64_t samples = 0;                     // every counted sample of every function
  std::vector<FunctionHotspots> functions;  // most samples first, at most top_functions
  size_t function_count = 0;                // functions that matched, shown or not
};

struct HotspotOptions {
  // Which functions (by demangled name); empty: all.
  std::function<bool(const std::string& demangled)> keep;
  size_t top_functions = 10;  // 0: all
  size_t top_lines = 10;      // 0: all
  size_t top_stalls = 3;      // per line; 0: all
};

SourceHotspots FindSourceHotspots(const model::Profile& profile, const HotspotOptions& options);

// Whether the profile holds PC samples at all.
inline bool HasPcSamples(const model::Profile& p) { return !p.pc_samples.empty(); }

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_SOURCE_HOTSPOTS_H_
