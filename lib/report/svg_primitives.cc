#include "lib/report/svg_primitives.h"

#include <string>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace cuscope::report::svg {

std::string Escape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

void Line(std::string& out, double x1, double y1, double x2, double y2, const char* color,
          double width, const char* extra) {
  absl::StrAppendFormat(&out,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                        "stroke-width=\"%.1f\"%s/>\n",
                        x1, y1, x2, y2, color, width, extra);
}

void Text(std::string& out, double x, double y, const std::string& escaped, const char* attrs) {
  absl::StrAppendFormat(&out, "<text x=\"%.1f\" y=\"%.1f\"%s>%s</text>\n", x, y, attrs, escaped);
}

}  // namespace cuscope::report::svg
