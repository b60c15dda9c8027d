#include "lib/cli/flags.h"

#include <iostream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cuscope::cli {
namespace {

// The flag that `name` names (after its dashes); null if none. `dashes` is 1 or 2:
// an alias is only written with one.
const Flag* Find(const std::vector<Flag>& flags, absl::string_view name, int dashes) {
  for (const Flag& f : flags) {
    if (name == f.name || (dashes == 1 && f.alias != nullptr && name == f.alias)) return &f;
  }
  return nullptr;
}

// A switch's value: "true" or "false", or "" if `text` is not a boolean.
std::string SwitchValue(absl::string_view text) {
  bool b = false;
  if (!absl::SimpleAtob(text, &b)) return "";
  return b ? "true" : "false";
}

// A word for an error line: C escapes (a newline is \n), a long one cut.
std::string Shown(absl::string_view word) {
  constexpr size_t kShown = 120;
  std::string out = absl::CHexEscape(word.substr(0, kShown));
  if (word.size() > kShown) absl::StrAppend(&out, "... (", word.size(), " bytes)");
  return out;
}

}  // namespace

std::string Args::Get(const std::string& name, const std::string& otherwise) const {
  auto it = values.find(name);
  return it == values.end() ? otherwise : it->second;
}

absl::StatusOr<Args> ParseArgs(const std::vector<Flag>& flags,
                               const std::vector<std::string>& words) {
  Args args;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.size() < 2 || word[0] != '-') {
      args.positional.push_back(word);  // "-" is a word too (stdout)
      continue;
    }
    int dashes = word[1] == '-' ? 2 : 1;
    absl::string_view body = absl::string_view(word).substr(dashes);
    size_t eq = body.find('=');
    absl::string_view name = body.substr(0, eq);
    const Flag* flag = Find(flags, name, dashes);
    bool negated = false;
    if (flag == nullptr && eq == absl::string_view::npos && absl::ConsumePrefix(&name, "no")) {
      flag = Find(flags, name, 2);
      negated = flag != nullptr && flag->value_name == nullptr;
      if (!negated) flag = nullptr;
    }
    if (flag == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag ", Shown(word)));
    }
    std::string& value = args.values[flag->name];
    if (flag->value_name == nullptr) {  // a switch
      value = negated                         ? "false"
              : eq == absl::string_view::npos ? "true"
                                              : SwitchValue(body.substr(eq + 1));
      if (value.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(Shown(word), " is not valid; accepted: --",
                                                       flag->name, ", --no", flag->name));
      }
    } else if (eq != absl::string_view::npos) {
      value = std::string(body.substr(eq + 1));
    } else if (i + 1 < words.size()) {
      value = words[++i];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(Shown(word), " needs a value: --", flag->name, "=", flag->value_name));
    }
  }
  return args;
}

std::string Wrap(absl::string_view text, int indent, int width) {
  std::string out, line;
  const std::string pad(indent, ' ');
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && static_cast<int>(indent + line.size() + 1 + word.size()) > width) {
      absl::StrAppend(&out, line, "\n", pad);
      line.clear();
    }
    absl::StrAppend(&line, line.empty() ? "" : " ", word);
  }
  return absl::StrCat(out, line, "\n");
}

std::string CommandHelp(absl::string_view usage, absl::string_view description,
                        const std::vector<Flag>& flags) {
  std::string out = absl::StrCat("usage: ", usage, "\n\n", Wrap(description, 0), "\nflags:\n");
  for (const Flag& f : flags) {
    std::string spelling =
        absl::StrCat(f.alias != nullptr ? absl::StrCat("-", f.alias, ", ") : "", "--", f.name);
    if (f.value_name != nullptr) absl::StrAppend(&spelling, "=", f.value_name);
    // The help in a column at 22, on the next line when the spelling reaches it.
    std::string gap =
        spelling.size() < 20 ? std::string(20 - spelling.size(), ' ') : "\n" + std::string(22, ' ');
    absl::StrAppend(&out, "  ", spelling, gap, Wrap(f.help, 22));
  }
  return out;
}

bool ParseTop(absl::string_view command, const std::string& text, int* top) {
  int n = 0;
  if (text.empty()) return true;
  if (absl::SimpleAtoi(text, &n) && n >= 0) {
    *top = n;
    return true;
  }
  UsageError(command, absl::StrCat("--top=\"", text,
                                   "\" is not valid; accepted: an integer >= 0 (0 = all)"));
  return false;
}

int UsageError(absl::string_view command, absl::string_view message) {
  std::cerr << "cuscope: " << command << ": " << message << "\n(run `cuscope " << command
            << " --help` for usage)\n";
  return kUsageError;
}

}  // namespace cuscope::cli
