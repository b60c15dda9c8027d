#include "lib/cli/flags.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cuscope::cli {
namespace {

// `name` with its dashes as underscores: the one normalization of flag names.
std::string Normalized(absl::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

// The index in `table` of the flag that `name` names (after its leading dashes); -1
// if none. `dashes` is 1 or 2: an alias is only written with one.
int Find(const std::vector<const FlagSpec*>& table, absl::string_view name, int dashes) {
  const std::string n = Normalized(name);
  for (size_t i = 0; i < table.size(); ++i) {
    const FlagSpec& f = *table[i];
    if (n == f.name || (dashes == 1 && f.alias != nullptr && name == f.alias)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Levenshtein distance between `a` and `b`.
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// A word for an error line: C escapes (a newline is \n), a long one cut.
std::string Shown(absl::string_view word) {
  constexpr size_t kShown = 120;
  std::string out = absl::CHexEscape(word.substr(0, kShown));
  if (word.size() > kShown) absl::StrAppend(&out, "... (", word.size(), " bytes)");
  return out;
}

}  // namespace

std::string Dashed(absl::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

std::string Suggestion(absl::string_view given, const std::vector<std::string>& candidates,
                       absl::string_view prefix) {
  const std::string g = Normalized(given);
  // A typo: at most a third of the name wrong (at least 1, at most 3 edits).
  const size_t limit = std::clamp<size_t>(g.size() / 3, 1, 3);
  size_t best = limit + 1;
  std::vector<std::string> nearest;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(g, Normalized(c));
    if (d > limit || d > best) continue;
    if (d < best) nearest.clear();
    best = d;
    if (std::find(nearest.begin(), nearest.end(), c) == nearest.end()) nearest.push_back(c);
  }
  if (nearest.empty() || nearest.size() > 3) return "";
  std::string out = "; did you mean ";
  for (size_t i = 0; i < nearest.size(); ++i) {
    if (i > 0) out += i + 1 == nearest.size() ? " or " : ", ";
    absl::StrAppend(&out, prefix, Dashed(nearest[i]));
  }
  return out + "?";
}

namespace {

absl::Status UnknownFlag(const std::vector<const FlagSpec*>& table, absl::string_view word,
                         absl::string_view name) {
  std::vector<std::string> names;
  for (const FlagSpec* f : table) names.push_back(f->name);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown flag ", Shown(word), Suggestion(name, names)));
}

bool IsHelpWord(absl::string_view word) {
  return word == "-h" || word == "--help" || word == "-help";
}

// Reads the flag `words[*i]` (a word starting with '-') into `out`, and its value
// from the next word when it takes one and is not written NAME=VALUE (`*i` then
// moves on).
absl::Status ReadFlag(const std::vector<const FlagSpec*>& table,
                      const std::vector<std::string>& words, size_t* i, Words* out) {
  const std::string& word = words[*i];
  const int dashes = word[1] == '-' ? 2 : 1;
  const absl::string_view body = absl::string_view(word).substr(dashes);
  const size_t eq = body.find('=');
  const absl::string_view name = body.substr(0, eq);
  int index = Find(table, name, dashes);
  bool negated = false;
  absl::string_view unnegated = name;
  if (index < 0 && eq == absl::string_view::npos && absl::ConsumePrefix(&unnegated, "no")) {
    if (!absl::ConsumePrefix(&unnegated, "-")) absl::ConsumePrefix(&unnegated, "_");
    index = Find(table, unnegated, 2);
    negated = index >= 0 && table[index]->value_name == nullptr;
    if (!negated) index = -1;
  }
  if (index < 0) return UnknownFlag(table, word, name);
  const FlagSpec& flag = *table[index];
  GivenFlag given{static_cast<size_t>(index), "",
                  std::string(word.substr(0, dashes + name.size()))};
  if (flag.value_name == nullptr) {  // a switch: never the next word
    given.value = eq != absl::string_view::npos ? std::string(body.substr(eq + 1))
                  : negated                     ? "false"
                                                : "true";
  } else if (eq != absl::string_view::npos) {
    given.value = std::string(body.substr(eq + 1));
  } else if (*i + 1 < words.size() && words[*i + 1] != "--") {
    given.value = words[++*i];
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(Shown(word), " needs a value: --", Dashed(flag.name), "=", flag.value_name));
  }
  out->flags.push_back(std::move(given));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Words> ReadWords(const std::vector<const FlagSpec*>& table,
                                const std::vector<std::string>& words, ParseMode mode) {
  Words out;
  const bool program_follows = mode == ParseMode::kProgramFollows;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (program_follows && (word == "--" || word.size() < 2 || word[0] != '-')) {
      out.program.assign(words.begin() + i + (word == "--" ? 1 : 0), words.end());
      break;
    }
    if (program_follows && IsHelpWord(word)) {
      out.help = true;
      continue;
    }
    if (word.size() < 2 || word[0] != '-') {
      out.positional.push_back(word);  // "-" is a word too (stdout)
      continue;
    }
    if (absl::Status st = ReadFlag(table, words, &i, &out); !st.ok()) return st;
  }
  return out;
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
                        const std::vector<const FlagSpec*>& table) {
  std::string out = absl::StrCat("usage: ", usage, "\n\n", Wrap(description, 0), "\nflags:\n");
  for (const FlagSpec* flag : table) {
    const FlagSpec& f = *flag;
    std::string spelling = absl::StrCat(f.alias != nullptr ? absl::StrCat("-", f.alias, ", ") : "",
                                        "--", Dashed(f.name));
    if (f.value_name != nullptr) absl::StrAppend(&spelling, "=", f.value_name);
    // The help in a column at 22, on the next line when the spelling reaches it.
    std::string gap =
        spelling.size() < 20 ? std::string(20 - spelling.size(), ' ') : "\n" + std::string(22, ' ');
    absl::StrAppend(&out, "  ", spelling, gap, Wrap(f.help, 22));
  }
  return out;
}

int UsageError(absl::string_view command, absl::string_view message) {
  std::cerr << "cuscope: " << command << ": " << message << "\n(run `cuscope " << command
            << " --help` for usage)\n";
  return kUsageError;
}

}  // namespace cuscope::cli
