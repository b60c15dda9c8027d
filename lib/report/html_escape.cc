#include "lib/report/html_escape.h"

#include "lib/model/utf8.h"

namespace cuscope::report {

std::string HtmlEscape(absl::string_view text) {
  std::string valid;
  if (!model::IsValidUtf8({text.data(), text.size()})) {
    valid = model::ReplaceInvalidUtf8({text.data(), text.size()});
    text = valid;
  }
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
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
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
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
