// Several ranks' profiles of one job side by side (`cuscope report A.sqlite B.sqlite`):
// per-rank wall, GPU and kernel time, the kernels of all ranks with each rank's time,
// stragglers (the skew of per-step time across ranks), and the time each rank spent
// in collective (NCCL) kernels.
#ifndef CUSCOPE_LIB_ANALYSIS_RANKS_H_
#define CUSCOPE_LIB_ANALYSIS_RANKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/steps.h"
#include "lib/analysis/summary.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

struct RankInput {
  const model::Profile* profile = nullptr;
  std::string label;  // how the report names it: the profile's path
};

struct RankColumn {
  std::string label;
  int rank = -1;  // the run's rank; -1 when the profile has none
  int64_t pid = 0;
  std::string host;
  uint64_t wall_ns = 0;
  uint64_t gpu_busy_ns = 0;   // summed over the rank's GPUs (usually one)
  uint64_t kernel_ns = 0;     // kernel time (Summary::kernel_ns)
  uint64_t kernel_count = 0;  // kernel records (Summary::kernel_count)
  uint64_t nccl_ns = 0;       // kernels whose name contains "nccl" (any case)
  uint64_t nccl_count = 0;
  // Above the rank that spent the least in NCCL kernels: roughly the time this rank
  // waited inside collectives for the slower ranks.
  uint64_t nccl_excess_ns = 0;
  // Durations of the step regions less cuscope's own time (own_time.h), in start order.
  std::vector<uint64_t> step_ns;
  DurationStats steps;
};

struct RankKernelRow {
  std::string name;                // demangled
  std::vector<uint64_t> total_ns;  // one per RankColumn
  std::vector<uint64_t> count;
  uint64_t sum_ns = 0;  // over ranks: the ranking
};

struct Stragglers {
  // "steps" when every rank has step regions (the same name), else "wall".
  std::string basis;
  std::string step_name;      // the step regions' name, when basis is "steps"
  size_t steps_compared = 0;  // step instances present in every rank
  // Per compared step: slowest rank's time - fastest rank's time; their median and
  // maximum, and the step (0-based) of the maximum. With basis "wall": one value.
  uint64_t median_skew_ns = 0;
  uint64_t max_skew_ns = 0;
  size_t max_skew_step = 0;
  // Index into RankComparison::ranks of the slowest and fastest rank (by median step
  // time, or wall time).
  size_t slowest = 0;
  size_t fastest = 0;
  double skew_percent = 0;  // (slowest - fastest) / fastest, of the same measure
};

struct RankComparison {
  std::vector<RankColumn> ranks;       // by rank; profiles without one last, in given order
  std::vector<RankKernelRow> kernels;  // by sum over ranks, descending
  Stragglers stragglers;
};

RankComparison CompareRanks(const std::vector<RankInput>& inputs);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_RANKS_H_
