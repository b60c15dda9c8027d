// The report for people: run details, then tables of GPU kernels, CUDA API calls,
// memory operations, regions and, when measured, hardware counters.
#ifndef CUSCOPE_LIB_REPORT_TEXT_H_
#define CUSCOPE_LIB_REPORT_TEXT_H_

#include <ostream>

#include "lib/report/report_data.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

void WriteText(const ReportData& data, const ReportOptions& options, std::ostream& out);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TEXT_H_
