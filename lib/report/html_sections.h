// The sections of the HTML report (html_report.h) rendered as HTML on the server side,
// so that the page shows them even before (or without) its script.
#ifndef CUSCOPE_LIB_REPORT_HTML_SECTIONS_H_
#define CUSCOPE_LIB_REPORT_HTML_SECTIONS_H_

#include <cstddef>
#include <string>

#include "lib/report/report_data.h"

namespace cuscope::report {

// Rows shown per table (kernels, regions, counter panels); the rest are counted.
inline constexpr size_t kHtmlMaxRows = 1000;

void AppendRunHeader(const ReportData& data, std::string& out);
void AppendFindings(const ReportData& data, std::string& out);
void AppendKernelTable(const ReportData& data, std::string& out);
void AppendRegionTree(const ReportData& data, std::string& out);
// The roofline SVG and one <details> panel per kernel signature with counters.
void AppendCounters(const ReportData& data, std::string& out);
// GPU metrics sampled at an interval (html_gpu_samples.cc): nothing without samples.
void AppendGpuSamples(const ReportData& data, std::string& out);

// Source hotspots from PC samples (html_source.cc): nothing without samples.
void AppendSourceHotspots(const ReportData& data, std::string& out);

// The page's style sheet and script (html_assets.cc).
const char* HtmlStyle();
const char* HtmlScript();

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_HTML_SECTIONS_H_
