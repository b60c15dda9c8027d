// The flags that several subcommands share, each declared once here and bound by each
// subcommand to a member of its own options struct: --format (a choice of the formats
// that subcommand writes), --top, --width and --output.
#ifndef CUSCOPE_LIB_CLI_COMMON_FLAGS_H_
#define CUSCOPE_LIB_CLI_COMMON_FLAGS_H_

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/cli/typed_flags.h"

namespace cuscope::cli {

// What --format chooses.
enum class Format { kText, kCsv, kJson };

// "text", "csv", "json".
const char* FormatName(Format format);

// --format=FORMAT, one of `accepted` (any case); the help and the error list them.
template <typename O>
Flag<O> FormatFlag(Format O::*member, const std::vector<Format>& accepted) {
  std::vector<std::pair<const char*, Format>> names;
  for (Format f : accepted) names.emplace_back(FormatName(f), f);
  return Choice("format", member, std::move(names), "FORMAT", "the format of the output");
}

// --top=N: how many rows (`what`: "rows per table"), 0 for all.
template <typename O>
Flag<O> TopFlag(int O::*member, absl::string_view what) {
  return Integer("top", member, 0, std::numeric_limits<int>::max(), "N",
                 absl::StrCat(what, ", 0 for all (default ", O{}.*member, ")"), "0 = all");
}

// What --width accepts: 0 (no limit) or a number of columns from
// config::kMinReportWidth to config::kMaxReportWidth.
absl::StatusOr<int> ParseWidth(absl::string_view text);

// --width=N: the columns of a text report; `member` holds -1 (its default) for the
// terminal's width (config::ReportWidth turns it into columns).
template <typename O>
Flag<O> WidthFlag(int O::*member) {
  return Parsed("width", member, "N",
                "columns of the text (default: the terminal's when stdout is one, else 100; 0 = "
                "no limit)",
                std::function<absl::StatusOr<int>(absl::string_view)>(ParseWidth));
}

// -o FILE, --output=FILE: where to write; `help` says what the default is.
template <typename O>
Flag<O> OutputFlag(std::string O::*member, std::string help) {
  return Text("output", member, "FILE", std::move(help)).Alias("o");
}

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_COMMON_FLAGS_H_
