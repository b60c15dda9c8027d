#include "lib/report/html_cells.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/demangle.h"
#include "lib/report/html_escape.h"

namespace cuscope::report {

std::string HtmlNumCell(double sort_key, absl::string_view text, absl::string_view cls) {
  return absl::StrCat("<td class=\"", cls, "\" data-v=\"", absl::StrFormat("%.15g", sort_key),
                      "\">", HtmlEscape(text), "</td>");
}

std::string HtmlKernelCell(const NameCut& names, const std::string& name) {
  const std::string full = model::Demangle(name);
  return absl::StrCat("<td class=\"name\" title=\"", HtmlEscape(full), "\">",
                      HtmlEscape(names.Fit(full, kHtmlNameChars)), "</td>");
}

std::string HtmlKeyValueRow(absl::string_view key, absl::string_view value) {
  return absl::StrCat("<tr><th>", HtmlEscape(key), "</th><td>", HtmlEscape(value), "</td></tr>\n");
}

}  // namespace cuscope::report
