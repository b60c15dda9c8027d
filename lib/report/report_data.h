// The one input of the text, CSV and JSON writers: a profile and everything the
// analysis finds in it, computed once by BuildReport.
#ifndef CUSCOPE_LIB_REPORT_REPORT_DATA_H_
#define CUSCOPE_LIB_REPORT_REPORT_DATA_H_

#include <string>
#include <vector>

#include "lib/analysis/counter_outcome.h"
#include "lib/analysis/gpu_samples.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/source_hotspots.h"
#include "lib/analysis/summary.h"
#include "lib/analysis/verdict_coverage.h"
#include "lib/model/advise_thresholds.h"
#include "lib/model/finding.h"
#include "lib/model/profile.h"
#include "lib/report/name_cut.h"

namespace cuscope::report {

struct ReportData {
  const model::Profile* profile = nullptr;  // run info and devices; must outlive the data
  analysis::Summary summary;
  std::vector<analysis::RegionSummaryRow> regions;
  // Hardware counters (empty when the profile has none): the ceilings of each
  // device with counters, one row per kernel signature, and what is missing and why.
  std::vector<analysis::Ceilings> ceilings;
  std::vector<analysis::KernelCounters> counters;
  std::vector<std::string> counter_notes;
  // How much of the GPU kernel time the verdicts cover (of `counters`).
  analysis::VerdictCoverage coverage;
  // What counters were asked for and what came of them: every report opens with it.
  analysis::CounterOutcome counter_outcome;
  // GPU metrics sampled at an interval (empty when the profile has no samples).
  analysis::GpuSampleAnalysis gpu_samples;
  std::vector<std::string> gpu_sample_notes;  // the run's gpu_metrics.* notes
  // Source hotspots (PC samples), the top functions and lines; empty without samples.
  analysis::SourceHotspots source;
  // The advisor's findings, ranked: those stored in the profile, else computed.
  std::vector<model::Finding> findings;
  // Every kernel name of the profile (KernelNameCut): the text cuts names by it.
  NameCut kernel_names;
};

// Runs each analysis once: the summary, the regions, the ceilings, then the
// counters, their coverage, outcome and notes from those ceilings and regions, the
// findings (analysis::FindingsOf: the stored ones, else computed with `thresholds`),
// and the kernel names.
ReportData BuildReport(const model::Profile& profile,
                       const model::AdviseThresholds& thresholds = {});

// The demangled names of every kernel of `profile` (its kernel records' display names
// and its counter sets' kernels), to fit kernel names in text: a report and `advise`
// of one profile cut a name alike.
NameCut KernelNameCut(const model::Profile& profile);

// The data's profile, or an empty one when it has none.
const model::Profile& ProfileOf(const ReportData& data);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_REPORT_DATA_H_
