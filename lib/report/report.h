// Writers of summaries: text (for people), CSV and JSON (for tools).
#ifndef CUSCOPE_LIB_REPORT_REPORT_H_
#define CUSCOPE_LIB_REPORT_REPORT_H_

#include <ostream>
#include <string>
#include <vector>

#include "lib/analysis/regions.h"
#include "lib/analysis/summary.h"
#include "lib/model/profile.h"

namespace cuscope::report {

struct ReportOptions {
  int top = 10;  // rows per table; <= 0 for all
};

// Everything a report shows, computed once from a profile.
struct ReportData {
  const model::Profile* profile = nullptr;  // run info and devices
  analysis::Summary summary;
  std::vector<analysis::RegionSummaryRow> regions;
};
ReportData BuildReport(const model::Profile& profile);

void WriteText(const ReportData& data, const ReportOptions& options, std::ostream& out);
void WriteCsv(const ReportData& data, const ReportOptions& options, std::ostream& out);
void WriteJson(const ReportData& data, const ReportOptions& options, std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_REPORT_H_
