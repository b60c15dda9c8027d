// Escaping text for an HTML page: element text and attribute values, and a JSON
// document placed inside a <script> element.
#ifndef CUSCOPE_LIB_REPORT_HTML_ESCAPE_H_
#define CUSCOPE_LIB_REPORT_HTML_ESCAPE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace cuscope::report {

// & < > " ' as character references (svg::Escape's), control characters as spaces;
// bytes that are not valid UTF-8 become U+FFFD.
// Safe in element text and in quoted attribute values.
std::string HtmlEscape(absl::string_view text);

// A JSON text made safe inside <script type="application/json">: every "</" becomes
// "<\/" (the same string to a JSON parser), so no "</script>" can close the element
// early, and "<!--" becomes "<\u0021--".
std::string ScriptSafeJson(absl::string_view json);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_HTML_ESCAPE_H_
