#include "lib/config/start_text.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/config/config.h"
#include "lib/config/from_env.h"
#include "lib/config/setting.h"

namespace cuscope::config {
namespace {

bool IsSeparator(char c) { return c == ';' || c == '\n'; }

// What follows a separator starts another setting (or nothing).
bool StartsSetting(absl::string_view rest) {
  rest = absl::StripLeadingAsciiWhitespace(rest);
  if (rest.empty() || IsSeparator(rest[0])) return true;
  if (!absl::ConsumePrefix(&rest, "CUSCOPE_")) return false;
  size_t end = 0;
  while (end < rest.size() &&
         (absl::ascii_isupper(rest[end]) || absl::ascii_isdigit(rest[end]) || rest[end] == '_')) {
    ++end;
  }
  rest = absl::StripLeadingAsciiWhitespace(rest.substr(end));
  return !rest.empty() && rest[0] == '=';
}

}  // namespace

absl::StatusOr<NamedValues> ParseStartText(absl::string_view text) {
  std::vector<absl::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsSeparator(text[i]) && StartsSetting(text.substr(i + 1))) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  NamedValues given;
  for (absl::string_view part : parts) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    size_t eq = part.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "setting ", Quoted(part), " is not NAME=VALUE (e.g. CUSCOPE_OUTPUT=run.sqlite)"));
    }
    std::string name(absl::StripAsciiWhitespace(part.substr(0, eq)));
    std::string value(absl::StripAsciiWhitespace(part.substr(eq + 1)));
    if (name != "CUSCOPE_OWNER_PID") {
      if (absl::Status st = ValidateSetting(name, value); !st.ok()) return st;
    }
    given.emplace_back(std::move(name), std::move(value));
  }
  return given;
}

}  // namespace cuscope::config
