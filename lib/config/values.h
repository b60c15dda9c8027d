// The kinds of value a setting holds, each a Value (setting.h) built from the
// member of Config it sets and, where it has one, its range: the text of what it
// accepts is made from the same numbers the parser checks.
#ifndef CUSCOPE_LIB_CONFIG_VALUES_H_
#define CUSCOPE_LIB_CONFIG_VALUES_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "lib/config/config.h"
#include "lib/config/setting.h"

namespace cuscope::config {

// The words of a yes/no value, for settings and the command's flags alike.
inline constexpr char kBoolWords[] = "1, 0, true, false, yes, no, on, off, t, f, y, n";

// The one boolean parser of cuscope (CUSCOPE_* settings and `cuscope` flags): one of
// kBoolWords in any case, surrounding blanks ignored, sets `*value`; false (and
// `*value` left as it was) for any other text.
bool ParseBool(absl::string_view text, bool* value);

}  // namespace cuscope::config

namespace cuscope::config::values {

// `text` without surrounding blanks, in lower case.
std::string Normalized(absl::string_view text);

// A yes/no value (ParseBool); a switch as a flag of `cuscope run`.
Value Bool(bool Config::*member);
// Any text but blanks, kept as given; an empty member prints as `when_empty`.
Value Path(std::string Config::*member, const char* when_empty);
// A regular expression (lib/model/pattern.h: RE2, searched), kept as given.
Value Regex(std::string Config::*member);
// A byte count with an optional K, M or G suffix, from `lo` to `hi`.
Value Bytes(uint64_t Config::*member, uint64_t lo, uint64_t hi);
// Config::trace: all, or a comma list of activity kinds.
Value TraceList();
// Config::metrics: a comma list of named sets and raw metric names.
Value MetricList();
// Config::capture, capture_range and capture_count: all, profiler-api, range:REGEX[:N].
Value CaptureSpec();

// "64K", "8M", "1G", "4096": the largest unit that divides `bytes`.
std::string FormatBytes(uint64_t bytes);

// An integer from `lo` to `hi` ("an integer >= lo" when `hi` is the type's maximum),
// with an optional note on what a value means, e.g. "0 = no limit".
template <typename T>
Value Int(T Config::*member, T lo, T hi, const char* note = nullptr) {
  std::string accepts = hi == std::numeric_limits<T>::max()
                            ? absl::StrCat("an integer >= ", lo)
                            : absl::StrCat("an integer from ", lo, " to ", hi);
  if (note != nullptr) absl::StrAppend(&accepts, " (", note, ")");
  return Value{accepts,
               [member, lo, hi](absl::string_view text, Config* c, std::string*) {
                 T n{};
                 if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(text), &n)) return false;
                 if (n != std::clamp(n, lo, hi)) return false;
                 c->*member = n;
                 return true;
               },
               [member](const Config& c) { return absl::StrCat(c.*member); }};
}

// Int, or `word` (any case) for `word_value`.
template <typename T>
Value IntOr(T Config::*member, T lo, T hi, const char* word, T word_value) {
  Value number = Int(member, lo, hi);
  return Value{absl::StrCat(number.accepts, ", or ", word),
               [member, word, word_value, parse = number.parse](absl::string_view text, Config* c,
                                                                std::string* why) {
                 if (Normalized(text) != word) return parse(text, c, why);
                 c->*member = word_value;
                 return true;
               },
               [member, word, word_value](const Config& c) {
                 return c.*member == word_value ? std::string(word) : absl::StrCat(c.*member);
               }};
}

// An advisor threshold (model::AdviseThresholds): a number (T = double) or an
// integer from `lo` to `hi`, with the unit or meaning in `note`.
template <typename T>
Value Threshold(T model::AdviseThresholds::*member, T lo, T hi, const char* note = nullptr) {
  std::string accepts = absl::StrCat(std::is_floating_point_v<T> ? "a number" : "an integer",
                                     " from ", lo, " to ", hi);
  if (note != nullptr) absl::StrAppend(&accepts, " (", note, ")");
  return Value{accepts,
               [member, lo, hi](absl::string_view text, Config* c, std::string*) {
                 T n{};
                 const absl::string_view t = absl::StripAsciiWhitespace(text);
                 bool ok;
                 if constexpr (std::is_floating_point_v<T>) {
                   ok = absl::SimpleAtod(t, &n) && n == n;  // not NaN
                 } else {
                   ok = absl::SimpleAtoi(t, &n);
                 }
                 if (!ok || n != std::clamp(n, lo, hi)) return false;
                 c->thresholds.*member = n;
                 return true;
               },
               [member](const Config& c) { return absl::StrCat(c.thresholds.*member); }};
}

// One of `names` (any case), e.g. {{"default", kDefault}, {"all", kAll}}.
template <typename E>
Value Choice(E Config::*member, std::vector<std::pair<const char*, E>> names) {
  std::string accepts;
  for (size_t i = 0; i < names.size(); ++i) {
    const char* sep = i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    absl::StrAppend(&accepts, sep, names[i].first);
  }
  return Value{accepts,
               [member, names](absl::string_view text, Config* c, std::string*) {
                 std::string s = Normalized(text);
                 for (const auto& [name, value] : names) {
                   if (s == name) {
                     c->*member = value;
                     return true;
                   }
                 }
                 return false;
               },
               [member, names](const Config& c) {
                 for (const auto& [name, value] : names) {
                   if (c.*member == value) return std::string(name);
                 }
                 return std::string();
               }};
}

}  // namespace cuscope::config::values

#endif  // CUSCOPE_LIB_CONFIG_VALUES_H_
