#include "lib/report/report_data.h"

#include "lib/analysis/advise.h"

namespace cuscope::report {

ReportData BuildReport(const model::Profile& profile, const model::AdviseThresholds& thresholds) {
  ReportData data;
  data.profile = &profile;
  data.summary = analysis::Summarize(profile);
  data.regions = analysis::SummarizeRegions(profile);
  data.ceilings = analysis::ComputeAllCeilings(profile);
  data.counters = analysis::AnalyzeCounters(profile, data.ceilings, &data.regions);
  data.coverage = analysis::CoverageOf(profile, data.counters);
  data.counter_outcome = analysis::OutcomeOf(profile, data.counters, data.coverage);
  data.counter_notes = analysis::CounterNotes(profile, data.ceilings);
  data.gpu_samples = analysis::AnalyzeGpuSamples(profile);
  data.gpu_sample_notes = analysis::GpuSampleNotes(profile);
  data.findings = analysis::FindingsOf(profile, thresholds);
  return data;
}

const model::Profile& ProfileOf(const ReportData& data) {
  static const model::Profile kEmpty;
  return data.profile != nullptr ? *data.profile : kEmpty;
}

}  // namespace cuscope::report
