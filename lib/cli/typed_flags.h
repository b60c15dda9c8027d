// Flags bound to the members of a subcommand's options struct, as config::Setting
// binds the members of Config (and as Abseil's ABSL_FLAG declares a typed flag with
// its help once). A subcommand declares a table of them; ParseFlags reads the words
// (flags.h), fills the struct and checks each value, so no value is looked up by name.
//
//   struct Options { int top = 10; bool chrome = false; std::string output; };
//   const FlagTable<Options> kTable = {
//       Integer("top", &Options::top, 0, 1000, "N", "rows per table"),
//       Switch("chrome", &Options::chrome, "write a Chrome trace"),
//       Text("output", &Options::output, "FILE", "the file to write").Alias("o")};
//   Options options;
//   absl::StatusOr<Words> words = ParseFlags(kTable, argv_words, &options);
#ifndef CUSCOPE_LIB_CLI_TYPED_FLAGS_H_
#define CUSCOPE_LIB_CLI_TYPED_FLAGS_H_

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "lib/cli/flags.h"
#include "lib/config/values.h"

namespace cuscope::cli {

// One flag of a subcommand whose options are an O.
template <typename O>
struct Flag {
  FlagSpec spec;
  // Sets the flag's member of `options` from `text` as the words gave it (flags.h:
  // GivenFlag::value). An error's message says what was wrong and what is accepted;
  // ParseFlags puts the flag's spelling before it.
  std::function<absl::Status(absl::string_view text, O* options)> set;

  // The flag, also written -`alias`.
  Flag Alias(const char* alias) && {
    spec.alias = alias;
    return std::move(*this);
  }
};

template <typename O>
using FlagTable = std::vector<Flag<O>>;

// "\"TEXT\" is not valid; accepted: ACCEPTS" (config::Quoted), as InvalidArgument.
absl::Status NotValid(absl::string_view text, absl::string_view accepts);

// "a, b or c".
std::string ListedWithOr(const std::vector<std::string>& items);

// A flag that sets `member` to what `parse` makes of its value; an empty value sets
// O{}'s (every empty flag is the default).
template <typename O, typename T>
Flag<O> Bind(FlagSpec spec, T O::*member,
             std::function<absl::StatusOr<T>(absl::string_view text)> parse) {
  return Flag<O>{std::move(spec), [member, parse = std::move(parse)](absl::string_view text, O* o) {
                   if (text.empty()) {
                     o->*member = O{}.*member;
                     return absl::OkStatus();
                   }
                   absl::StatusOr<T> value = parse(text);
                   if (!value.ok()) return value.status();
                   o->*member = *std::move(value);
                   return absl::OkStatus();
                 }};
}

// A switch: --name, --no-name, --name=BOOL (config::ParseBool); never the next word.
template <typename O>
Flag<O> Switch(const char* name, bool O::*member, std::string help) {
  return Bind<O, bool>({name, nullptr, nullptr, std::move(help)}, member,
                       [](absl::string_view text) -> absl::StatusOr<bool> {
                         bool b = false;
                         if (config::ParseBool(text, &b)) return b;
                         return NotValid(text, config::kBoolWords);
                       });
}

// Any text, kept as given.
template <typename O>
Flag<O> Text(const char* name, std::string O::*member, const char* value_name, std::string help) {
  return Bind<O, std::string>(
      {name, nullptr, value_name, std::move(help)}, member,
      [](absl::string_view text) -> absl::StatusOr<std::string> { return std::string(text); });
}

// What an integer or number from `lo` to `hi` accepts ("... >= lo" when `hi` is the
// type's largest), with an optional note on what a value means ("0 = all").
template <typename T>
std::string RangeText(T lo, T hi, const char* note) {
  const char* kind = std::is_integral_v<T> ? "an integer" : "a number";
  std::string out = hi == std::numeric_limits<T>::max()
                        ? absl::StrCat(kind, " >= ", lo)
                        : absl::StrCat(kind, " from ", lo, " to ", hi);
  if (note != nullptr) absl::StrAppend(&out, " (", note, ")");
  return out;
}

// An integer (int, int64_t, size_t, ...) from `lo` to `hi`.
template <typename O, typename T>
Flag<O> Integer(const char* name, T O::*member, T lo, T hi, const char* value_name,
                std::string help, const char* note = nullptr) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  return Bind<O, T>(
      {name, nullptr, value_name, std::move(help)}, member,
      [lo, hi, accepts = RangeText(lo, hi, note)](absl::string_view text) -> absl::StatusOr<T> {
        T n{};
        if (absl::SimpleAtoi(text, &n) && n >= lo && n <= hi) return n;
        return NotValid(text, accepts);
      });
}

// A finite number from `lo` to `hi`.
template <typename O>
Flag<O> Number(const char* name, double O::*member, double lo, double hi, const char* value_name,
               std::string help, const char* note = nullptr) {
  return Bind<O, double>(
      {name, nullptr, value_name, std::move(help)}, member,
      [lo, hi,
       accepts = RangeText(lo, hi, note)](absl::string_view text) -> absl::StatusOr<double> {
        double x = 0;
        if (absl::SimpleAtod(text, &x) && std::isfinite(x) && x >= lo && x <= hi) {
          return x;
        }
        return NotValid(text, accepts);
      });
}

// One of `names` (any case). The help is `lead` followed by the names and the
// default (O{}'s): "LEAD: text, csv or json (default text)"; an error lists them.
template <typename O, typename E>
Flag<O> Choice(const char* name, E O::*member, std::vector<std::pair<const char*, E>> names,
               const char* value_name, absl::string_view lead) {
  std::vector<std::string> listed;
  std::string accepts, fallback;
  for (const auto& [word, value] : names) {
    listed.push_back(word);
    absl::StrAppend(&accepts, accepts.empty() ? "" : ", ", word);
    if (value == O{}.*member) fallback = word;
  }
  std::string help = absl::StrCat(lead, ": ", ListedWithOr(listed), " (default ", fallback, ")");
  return Bind<O, E>(
      {name, nullptr, value_name, std::move(help)}, member,
      [names = std::move(names), accepts](absl::string_view text) -> absl::StatusOr<E> {
        const std::string given = config::values::Normalized(text);
        for (const auto& [word, value] : names) {
          if (given == word) return value;
        }
        return NotValid(text, accepts);
      });
}

// A value of type T that `parse` makes of the text (a duration, a width with a
// meaning of its own); its error says what is accepted.
template <typename O, typename T>
Flag<O> Parsed(const char* name, T O::*member, const char* value_name, std::string help,
               std::function<absl::StatusOr<T>(absl::string_view text)> parse) {
  return Bind<O, T>({name, nullptr, value_name, std::move(help)}, member, std::move(parse));
}

// The table's specs, for ReadWords and CommandHelp.
template <typename O>
std::vector<const FlagSpec*> Specs(const FlagTable<O>& table) {
  std::vector<const FlagSpec*> out;
  for (const Flag<O>& f : table) out.push_back(&f.spec);
  return out;
}

// Reads `words` (flags.h: ReadWords) and sets each flag given, in order, on `options`
// (a flag given twice: the last wins). A value a flag does not accept gives
// InvalidArgument with one line: "SPELLING: what was wrong; accepted: ...".
template <typename O>
absl::StatusOr<Words> ParseFlags(const FlagTable<O>& table, const std::vector<std::string>& words,
                                 O* options, ParseMode mode = ParseMode::kWords) {
  absl::StatusOr<Words> read = ReadWords(Specs(table), words, mode);
  if (!read.ok()) return read.status();
  for (const GivenFlag& given : read->flags) {
    absl::Status st = table[given.index].set(given.value, options);
    if (!st.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(given.spelling, ": ", st.message()));
    }
  }
  return read;
}

// The help of a subcommand with this table (flags.h: CommandHelp).
template <typename O>
std::string CommandHelp(absl::string_view usage, absl::string_view description,
                        const FlagTable<O>& table) {
  return CommandHelp(usage, description, Specs(table));
}

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_TYPED_FLAGS_H_
