// The report for tools: one JSON object with the run, counts, devices and one
// {"total_rows", "rows"} table per section; raw numbers, full names.
#ifndef CUSCOPE_LIB_REPORT_JSON_H_
#define CUSCOPE_LIB_REPORT_JSON_H_

#include <ostream>

#include "lib/report/report_data.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

void WriteJson(const ReportData& data, const ReportOptions& options, std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_JSON_H_
