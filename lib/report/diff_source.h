// The diff's source lines (analysis/compare_source.h): the hot lines of kernel functions
// PC-sampled in both profiles, their share of the function's samples and top stall
// before and after, as text and JSON.
#ifndef CUSCOPE_LIB_REPORT_DIFF_SOURCE_H_
#define CUSCOPE_LIB_REPORT_DIFF_SOURCE_H_

#include <ostream>
#include <vector>

#include "lib/analysis/compare_source.h"
#include "lib/report/json_writer.h"
#include "lib/report/report_options.h"

namespace cuscope::report {

void WriteSourceChangesText(const std::vector<analysis::SourceLineChange>& rows,
                            const ReportOptions& options, std::ostream& out);
void WriteSourceChangesJson(json::Writer& w, const std::vector<analysis::SourceLineChange>& rows,
                            int top);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_DIFF_SOURCE_H_
