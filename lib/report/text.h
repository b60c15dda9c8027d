// The report for people: run details, then tables of GPU kernels, CUDA API calls,
// memory operations, regions and, when measured, hardware counters.
#ifndef CUSCOPE_LIB_REPORT_TEXT_H_
#define CUSCOPE_LIB_REPORT_TEXT_H_

#include <ostream>
#include <string>

#include "lib/report/report_data.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

void WriteText(const ReportData& data, const ReportOptions& options, std::ostream& out);

// The header's "Kernel time" value: "83.002 ms in 2553 timed launches", then the
// launches measured with counters left out of it and those in it.
std::string KernelTimeText(const analysis::Summary& s);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TEXT_H_
