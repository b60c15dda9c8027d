// Two profiles side by side: what changed between a baseline and a new run (the
// "fix, profile again, compare" step). Pure functions over the summaries.
#ifndef CUSCOPE_LIB_ANALYSIS_COMPARE_H_
#define CUSCOPE_LIB_ANALYSIS_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/compare_basis.h"
#include "lib/analysis/compare_findings.h"
#include "lib/analysis/compare_samples.h"
#include "lib/analysis/compare_source.h"
#include "lib/analysis/compare_totals.h"
#include "lib/analysis/summary.h"
#include "lib/model/advise_thresholds.h"
#include "lib/model/checked.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// One side's numbers for a kernel name or a region path (zero when absent there).
struct Side {
  uint64_t count = 0;
  uint64_t total_ns = 0;
  double avg_ns = 0;
  uint64_t kernels = 0;      // regions: kernels launched inside
  uint64_t gpu_time_ns = 0;  // regions: GPU time of those kernels
};

struct Delta {
  std::string name;  // kernel name or region path
  // Kernels: the comparable launches (KernelTimeComparison), and why some were left out.
  Side base, next;
  LeftOut left_out = LeftOut::kNone;
  uint64_t base_left_out = 0, next_left_out = 0;
  // Saturates instead of wrapping (lib/model/checked.h).
  int64_t total_change_ns() const {
    return model::SaturatingDifference(next.total_ns, base.total_ns);
  }
  // Change of the total in % of the baseline (+inf when new, -100 when gone).
  double total_change_percent() const;
};

// One GPU's busy time on each side (matched by device id; zero on the side that
// lacks the device): the union of its kernels, copies and memsets within the wall
// time, as the report's header (analysis::Summarize).
struct BusyDelta {
  uint32_t device_id = 0;
  std::string device_name;  // the new profile's, else the base's
  DeviceBusy base, next;
  int64_t change_ns() const { return model::SaturatingDifference(next.busy_ns, base.busy_ns); }
  double change_percent() const {
    return ChangePercent(static_cast<double>(base.busy_ns), static_cast<double>(next.busy_ns));
  }
  // The shares are of the program's wall (DeviceBusy::program_busy_percent) when either
  // profile has cuscope's own time, so that its hold does not read as the GPU idling.
  bool of_program = false;
  double base_percent() const { return of_program ? base.program_busy_percent : base.busy_percent; }
  double next_percent() const { return of_program ? next.program_busy_percent : next.busy_percent; }
  // Change of the busy share, in percentage points.
  double change_points() const { return next_percent() - base_percent(); }
};

struct Comparison {
  // How each profile was taken and what its profiler removed or added.
  ProfilerEffects base_profiler, next_profiler;
  uint64_t base_wall_ns = 0, next_wall_ns = 0;
  // Each profile's kernel time (Summary::kernel_ns: its report's) and kernel records.
  uint64_t base_kernel_ns = 0, next_kernel_ns = 0;
  uint64_t base_kernel_count = 0, next_kernel_count = 0;
  // The kernel records' counts are the program's launches on both sides (or equal).
  bool kernel_count_compared = true;
  // Kernel time over the launches both profiles timed alike: what changed.
  KernelTimeComparison kernel_time;
  std::vector<Delta> kernels;            // comparable launches, by |change|, largest first
  std::vector<Delta> regions;            // by |change of total time|, largest first
  std::vector<BusyDelta> busy;           // by device id
  std::vector<TotalsDelta> memory;       // copies by direction and host memory, memsets
  TotalsDelta copies;                    // all copies together ("all copies")
  std::vector<TotalsDelta> api;          // CUDA API calls by name
  TotalsDelta sync_calls;                // the synchronizing API calls together
  MetricsDifference metrics;             // counter metrics measured on one side only
  std::vector<VerdictChange> verdicts;   // measured in both, verdict changed
  std::vector<FindingChange> findings;   // stored findings, or computed with `thresholds`
  std::vector<SampledChange> sampled;    // GPU metrics of kernels sampled in both
  std::vector<SourceLineChange> source;  // hot lines of kernel functions PC-sampled in both
};

// `thresholds` compute the findings of a profile that stores none; a finding that
// appeared or was resolved is confirmed against the other profile's own quantities
// (ConfirmFindingChanges).
Comparison Compare(const model::Profile& base, const model::Profile& next,
                   const model::AdviseThresholds& thresholds = {});

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COMPARE_H_
