// The few SVG elements the roofline chart writes by hand: text escaped for XML, and
// <line> and <text> elements appended to a string with coordinates to 0.1 pixel.
#ifndef CUSCOPE_LIB_REPORT_SVG_PRIMITIVES_H_
#define CUSCOPE_LIB_REPORT_SVG_PRIMITIVES_H_

#include <string>

#include "absl/strings/string_view.h"

namespace cuscope::report::svg {

// `s` with &, <, >, " and ' as entities and control characters (but tab and newline),
// which XML 1.0 does not allow, as spaces.
std::string Escape(absl::string_view s);

// <line x1 y1 x2 y2 stroke stroke-width/>, `extra` (" name=\"value\"...") before the close.
void Line(std::string& out, double x1, double y1, double x2, double y2, const char* color,
          double width, const char* extra = "");

// <text x y>escaped</text>, `attrs` (" name=\"value\"...") after y.
void Text(std::string& out, double x, double y, const std::string& escaped, const char* attrs = "");

}  // namespace cuscope::report::svg

#endif  // CUSCOPE_LIB_REPORT_SVG_PRIMITIVES_H_
