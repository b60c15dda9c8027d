// Writers of summaries: text (for people), CSV and JSON (for tools).
#ifndef CUSCOPE_LIB_REPORT_REPORT_H_
#define CUSCOPE_LIB_REPORT_REPORT_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "lib/analysis/compare.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/summary.h"
#include "lib/model/profile.h"

namespace cuscope::report {

struct ReportOptions {
  int top = 10;  // rows per table; <= 0 for all
  // Text only: longer names are cut to this many bytes, ending in "..."; 0 for no limit.
  size_t max_name_width = 80;
};

// Everything a report shows, computed once from a profile.
struct ReportData {
  const model::Profile* profile = nullptr;  // run info and devices
  analysis::Summary summary;
  std::vector<analysis::RegionSummaryRow> regions;
  // Hardware counters (empty when the profile has none): the ceilings of each
  // device with counters, one row per kernel signature, and what is missing and why.
  std::vector<analysis::Ceilings> ceilings;
  std::vector<analysis::KernelCounters> counters;
  std::vector<std::string> counter_notes;
};
ReportData BuildReport(const model::Profile& profile);

void WriteText(const ReportData& data, const ReportOptions& options, std::ostream& out);
void WriteCsv(const ReportData& data, const ReportOptions& options, std::ostream& out);
void WriteJson(const ReportData& data, const ReportOptions& options, std::ostream& out);

// Two profiles side by side (`cuscope diff BASE NEW`): totals, then kernels and
// regions ranked by the change of their total time. `top` limits each table.
void WriteComparisonText(const analysis::Comparison& c, const std::string& base_label,
                         const std::string& next_label, const ReportOptions& options,
                         std::ostream& out);
void WriteComparisonJson(const analysis::Comparison& c, const std::string& base_label,
                         const std::string& next_label, const ReportOptions& options,
                         std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_REPORT_H_
