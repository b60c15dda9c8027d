#include "lib/report/html_escape.h"

#include "lib/model/utf8.h"
#include "lib/report/svg_primitives.h"

namespace cuscope::report {

std::string HtmlEscape(absl::string_view text) {
  std::string valid;
  if (!model::IsValidUtf8({text.data(), text.size()})) {
    valid = model::ReplaceInvalidUtf8({text.data(), text.size()});
    text = valid;
  }
  // The same references as the SVG writer's (&apos; is HTML5's too).
  return svg::Escape(text);
}

std::string ScriptSafeJson(absl::string_view json) {
  std::string out;
  out.reserve(json.size() + 16);
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<' && i + 1 < json.size() && json[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else if (c == '<' && json.substr(i, 4) == "<!--") {
      out += "<\\u0021--";
      i += 3;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace cuscope::report
