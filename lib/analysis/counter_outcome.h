// What hardware counters were asked for and what came of them: the settings the run
// was taken with (model::RunNotes::settings), the strategy that measured, how many
// kernel signatures were measured of how many, and, when some were not, why, from
// the run's notes, its settings and its steps. Every report opens with it when
// counters were asked for (lib/report/counter_outcome_text.h writes the line;
// docs/counters.md, "The opening line"). Structured; pure functions, no I/O.
#ifndef CUSCOPE_LIB_ANALYSIS_COUNTER_OUTCOME_H_
#define CUSCOPE_LIB_ANALYSIS_COUNTER_OUTCOME_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/verdict_coverage.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// Why signatures have no counters, or what else fell short, each from one note or
// setting.
enum class ShortfallKind : uint8_t {
  kStatus = 0,      // counters.status: counters could not run or stopped (`text`)
  kMetricsDropped,  // counters.dropped: requested metrics the chip does not have (`text`)
  // Rotate and a loop of `count` steps, fewer than `needs` for a set of `passes`.
  kLoopTooShort,
  kStartupOnly,    // `count` unmeasured signatures ran only before the first step
  kSetsDropped,    // `count` counter sets dropped; `text`: by reason, from counters.summary
  kKernelsFilter,  // the kernels setting (`text`, the regex) leaves kernels out
  kRegionsFilter,  // the regions setting (`text`) leaves launches outside them out
  kLaunchCount,    // the launch_count setting (`count`) was reached
  kNccl,           // `count` NCCL kernel launches, never measured
  kCaptured,       // `count` launches during stream capture, never measured
  // `count` unmeasured signatures launched only inside CUDA graphs: the Range Profiler
  // measures no kernel inside a graph launch (CUDA 13.0); GPU metrics sampling does.
  kGraphOnly,
  kBudget,       // counters.budget_idle: rotate's time budget allowed no set (`text`)
  kBackoff,      // counters.backoff: the sweep waited (`text`)
  kUnexplained,  // signatures not measured and no note says why
};

struct Shortfall {
  ShortfallKind kind = ShortfallKind::kUnexplained;
  uint64_t count = 0;
  uint64_t needs = 0;   // kLoopTooShort: the steps a set needs
  uint64_t passes = 0;  // kLoopTooShort
  std::string text;
};

struct CounterOutcome {
  // Counters were asked for: the metrics setting is not empty; in a profile without
  // settings, it has counter notes or counter sets.
  bool asked = false;
  bool settings_recorded = false;  // the profile stores its settings
  std::string metrics;             // the metrics setting as given; "" when not recorded
  std::string replay;              // the replay setting; "" when not recorded
  std::string strategy;            // counters.strategy: what measured; "" when nothing did
  bool regions = false;            // regions measured as a whole (region_counters)
  // Kernel signatures measured (with counter sets) of those in the profile
  // (VerdictCoverage); for regions measured as a whole, the regions measured.
  uint64_t measured = 0, signatures = 0;
  uint64_t steps = 0;  // step regions (steps.h); 0 without
  std::vector<Shortfall> shortfalls;
};

// The steps a rotate set needs in a loop whose period is one step: its period is found
// after two (the last repeats the one before), with a bounded number of samples per
// signature once the loop has run as long as the set, then one step a pass
// (lib/collect/rotate_driver.cc, RememberShortRun).
uint64_t RotateStepsNeeded(uint64_t passes, bool bounded_samples);

// `counters` is AnalyzeCounters(profile), `coverage` CoverageOf(profile, counters).
CounterOutcome OutcomeOf(const model::Profile& profile, const std::vector<KernelCounters>& counters,
                         const VerdictCoverage& coverage);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COUNTER_OUTCOME_H_
