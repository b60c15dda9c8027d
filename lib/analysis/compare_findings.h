// What a change did to the advice and the verdicts: findings that appeared, were
// resolved or stayed (with their estimated gains), and kernels whose verdict
// changed. Pure functions over the findings and kernel counters of two profiles.
#ifndef CUSCOPE_LIB_ANALYSIS_COMPARE_FINDINGS_H_
#define CUSCOPE_LIB_ANALYSIS_COMPARE_FINDINGS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/compare_basis.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/model/advise_thresholds.h"
#include "lib/model/finding.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// kNotCompared: a finding from counters whose kernel the other profile did not measure.
enum class FindingChangeKind { kAppeared, kResolved, kStayed, kNotCompared };
// "appeared", "resolved", "stayed", "not compared".
const char* FindingChangeKindName(FindingChangeKind k);

// The profile a note on a finding change is about.
enum class FindingSide : uint8_t { kNeither = 0, kBase, kNext };

// Why a finding stayed although one profile's findings lack it, or was not compared.
enum class FindingWhy : uint8_t {
  kNone = 0,
  kUnderMinimum,   // stayed: under AdviseThresholds::min_gain_pct of its own basis there,
                   // not of the basis where it fired
  kNoCounters,     // not compared: no counters of its kernel there
  kRecordsLeftOut  // not compared: the profiler left records it rests on out there
};

// A finding is the same in both profiles when its rule, kernel and kernel signature
// are (a kernel rule fires once per signature, the grid and block sizes its evidence
// gives as grid_blocks and block_threads; other rules once per run); its region and
// time range may move.
struct FindingChange {
  FindingChangeKind kind = FindingChangeKind::kStayed;
  std::string rule, kernel, region;
  // The signature's blocks per grid and threads per block; 0 when the finding names none.
  uint64_t grid_blocks = 0, block_threads = 0;
  double base_gain_ns = 0, next_gain_ns = 0;  // 0 on the side that lacks it
  std::string summary;                        // the new profile's, else the base's
  // Stayed: the side where it fell under the minimum gain (its gain there is the one
  // computed without that minimum). Not compared: the side that measured no counters of
  // its kernel, or whose profiler left records out.
  FindingSide side = FindingSide::kNeither;
  FindingWhy why = FindingWhy::kNone;
  bool gpu_basis = false;  // a kernel rule's gain, a share of GPU time (from counters)
  // The basis its gain is a share of (gain_ns x 100 / gain_pct), in the profile that has
  // it when only one does; 0 when unknown.
  double basis_ns = 0;
};

// Appeared and resolved first, each by estimated gain (largest first), then those that
// stayed by the change of their gain.
std::vector<FindingChange> CompareFindings(const std::vector<model::Finding>& base,
                                           const std::vector<model::Finding>& next);

// A finding is resolved (or appeared) only when the program's own quantity changed. So
// each one that appeared or was resolved is looked for again in the profile that lacks
// it, with no minimum gain (its basis, e.g. a wall time the profiler stretched, may have
// put it under the minimum): found with a gain still above the minimum share of the
// basis where it fired, it stayed. Not found, it is not compared when the
// quantity it rests on is missing for the profiler's sake: a finding from counters (a
// kernel rule, basis GPU time) whose kernel the other profile measured no counters of;
// a timeline finding when either profile's profiler left records out (copies and
// memsets for the copy rules, any kernel, copy or memset record for the others).
void ConfirmFindingChanges(const model::Profile& base, const ProfilerEffects& base_fx,
                           const model::Profile& next, const ProfilerEffects& next_fx,
                           const model::AdviseThresholds& thresholds,
                           std::vector<FindingChange>& changes);

// A kernel signature measured in both profiles whose verdict differs.
struct VerdictChange {
  std::string name;
  model::Dim3 grid, block;
  std::string base_verdict, next_verdict;  // VerdictName
};

// In the new profile's order (its kernels by time).
std::vector<VerdictChange> CompareVerdicts(const std::vector<KernelCounters>& base,
                                           const std::vector<KernelCounters>& next);

// The hardware-counter metrics measured in one profile and not the other (each
// sorted): profiles collected with other metric sets (--counters=roofline against a
// tensor set) give other verdicts and findings with no change in the program.
struct MetricsDifference {
  std::vector<std::string> only_base, only_next;
  bool differ() const { return !only_base.empty() || !only_next.empty(); }
};

// Over the metric names of every counter set of each profile (kernels and regions).
MetricsDifference CompareMeasuredMetrics(const model::Profile& base, const model::Profile& next);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COMPARE_FINDINGS_H_
