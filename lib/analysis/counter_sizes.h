// Launch sizes within one kernel signature. A persistent kernel (cuBLAS's nvjet GEMMs)
// launches the same grid for problems of every size, so the launches of one signature
// (name, grid, block) may differ several-fold in duration and in what bounds them, and
// one verdict for all of them is wrong for some. When a signature's measured launches
// (its counter sets) have durations that jump by more than kSizeGap between
// neighbours (sorted), each run of them is a size with its own verdict (neighbours whose
// verdicts agree, SameVerdict, are one size; a signature whose sizes all agree has
// none), and each of the signature's kernel records counts for the size of nearest
// duration (log scale). Pure.
//
// kSizeGap is small because sizes of one GEMM can be close in duration and still differ
// in class, while launches of one size are closer still (docs/performance.md,
// "Verdicts per launch size").
#ifndef CUSCOPE_LIB_ANALYSIS_COUNTER_SIZES_H_
#define CUSCOPE_LIB_ANALYSIS_COUNTER_SIZES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lib/analysis/verdict.h"

namespace cuscope::analysis {

// Durations of neighbouring sizes differ by more than this factor.
inline constexpr double kSizeGap = 1.05;

struct LaunchSize {
  double min_ns = 0, max_ns = 0;      // the measured launches' durations
  std::vector<uint32_t> set_indices;  // its sets, as indices into profile.counters
  uint64_t launches = 0;              // kernel records of the signature of this size
  uint64_t time_ns = 0;               // their kernel time (timed launches)
  double time_percent = 0;            // of the signature's kernel time
  Verdict verdict;                    // from its sets' values alone
};

// `durations[i]`: the measured duration of set `sets[i]` (<= 0: none). The sizes in
// ascending duration, each with its sets; none when fewer than two sizes (sets without
// a duration belong to none).
std::vector<LaunchSize> SplitBySize(const std::vector<uint32_t>& sets,
                                    const std::vector<double>& durations);

// The size whose durations are nearest `duration_ns`: the one whose range holds it, else
// the one with the nearer end (log scale); sizes not empty.
size_t NearestSize(const std::vector<LaunchSize>& sizes, double duration_ns);

// Whether two verdicts say the same: speed-of-light class and bound.
bool SameVerdict(const Verdict& a, const Verdict& b);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COUNTER_SIZES_H_
