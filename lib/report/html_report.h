// The HTML report (`cuscope report PROFILE --html FILE`): one self-contained page, no
// network (styles, scripts, the roofline SVG and the data inline), with the run
// header, the findings, the kernel table (sortable), the region tree, the roofline
// chart, a counter panel per kernel signature and a zoomable timeline overview per
// stream. Large runs are aggregated: the timeline into bins (html_timeline.h), the
// tables into their top rows (kHtmlMaxRows). docs/reports.md describes the page.
#ifndef CUSCOPE_LIB_REPORT_HTML_REPORT_H_
#define CUSCOPE_LIB_REPORT_HTML_REPORT_H_

#include <string>

#include "absl/status/status.h"
#include "lib/report/report_data.h"

namespace cuscope::report {

// The page's text.
std::string RenderHtmlReport(const ReportData& data);

// The page's data: the run header and the timeline overview, as one JSON document
// (the page embeds it with ScriptSafeJson).
std::string HtmlReportJson(const ReportData& data);

// Writes RenderHtmlReport's text to `path` ("-" for stdout).
absl::Status WriteHtmlReport(const ReportData& data, const std::string& path);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_HTML_REPORT_H_
