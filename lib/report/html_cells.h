// Table cells of the HTML pages (html_sections.cc, html_diff.cc): text escaped, and
// a sort key for the page's sortable tables.
#ifndef CUSCOPE_LIB_REPORT_HTML_CELLS_H_
#define CUSCOPE_LIB_REPORT_HTML_CELLS_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "lib/report/name_cut.h"

namespace cuscope::report {

// <td class="CLS" data-v="SORT_KEY">TEXT</td>: the key with 15 significant digits
// (finite: each page maps infinities its own way), the text escaped.
std::string HtmlNumCell(double sort_key, absl::string_view text, absl::string_view cls = "num");

// The longest kernel name a cell shows: about the width of a name column (60em).
constexpr size_t kHtmlNameChars = 96;
// <td class="name" title="NAME">SHOWN</td>: the kernel's demangled name fitted to
// kHtmlNameChars by `names` (the view's kernel names), whole on hover; both escaped.
std::string HtmlKernelCell(const NameCut& names, const std::string& name);

// <tr><th>KEY</th><td>VALUE</td></tr>, both escaped.
std::string HtmlKeyValueRow(absl::string_view key, absl::string_view value);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_HTML_CELLS_H_
