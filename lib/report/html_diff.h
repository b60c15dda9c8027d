// The comparison of two profiles as one self-contained HTML page (`cuscope diff BASE
// NEW --html FILE`, or `cuscope report BASE NEW --html FILE`): the totals (wall,
// kernel and GPU busy time, copies, synchronizing calls), the findings that appeared,
// were resolved or stayed, and sortable tables of kernels, regions, memory operations,
// CUDA API calls and changed verdicts. It shares the HTML report's style sheet and
// script (html_sections.h); no network. docs/reports.md describes the page.
#ifndef CUSCOPE_LIB_REPORT_HTML_DIFF_H_
#define CUSCOPE_LIB_REPORT_HTML_DIFF_H_

#include <string>

#include "absl/status/status.h"
#include "lib/analysis/compare.h"

namespace cuscope::report {

// The page's text. Tables hold at most kHtmlMaxRows rows each (the largest changes).
std::string RenderHtmlDiff(const analysis::Comparison& c, const std::string& base_label,
                           const std::string& next_label);

// Writes RenderHtmlDiff's text to `path` ("-" for stdout).
absl::Status WriteHtmlDiff(const analysis::Comparison& c, const std::string& base_label,
                           const std::string& next_label, const std::string& path);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_HTML_DIFF_H_
