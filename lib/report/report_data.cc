#include "lib/report/report_data.h"

#include <string>
#include <vector>

#include "lib/analysis/advise.h"
#include "lib/model/demangle.h"

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
  if (analysis::HasPcSamples(profile)) data.source = analysis::FindSourceHotspots(profile, {});
  data.gpu_sample_notes = analysis::GpuSampleNotes(profile);
  data.findings = analysis::FindingsOf(profile, thresholds);
  data.kernel_names = KernelNameCut(profile);
  return data;
}

NameCut KernelNameCut(const model::Profile& profile) {
  std::vector<std::string> names;
  analysis::KernelNameIndex index(profile);
  for (const model::KernelRecord& k : profile.kernels) index.Id(k);
  for (size_t i = 0; i < index.size(); ++i) {
    names.push_back(model::Demangle(index.Name(static_cast<uint32_t>(i))));
  }
  for (const model::CounterSet& s : profile.counters) {
    const bool region = s.grid.volume() == 0 && s.block.volume() == 0;  // as AnalyzeCounters
    if (!region) names.push_back(model::Demangle(profile.str(s.name)));
  }
  return NameCut(std::move(names));
}

const model::Profile& ProfileOf(const ReportData& data) {
  static const model::Profile kEmpty;
  return data.profile != nullptr ? *data.profile : kEmpty;
}

}  // namespace cuscope::report
