// The report for spreadsheets and scripts: one CSV section per table ("# name"
// line, header row, rows), sections separated by blank lines; raw numbers, full names.
#ifndef CUSCOPE_LIB_REPORT_CSV_H_
#define CUSCOPE_LIB_REPORT_CSV_H_

#include <ostream>

#include "lib/report/report_data.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

void WriteCsv(const ReportData& data, const ReportOptions& options, std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_CSV_H_
