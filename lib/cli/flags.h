// The command line of one `cuscope` subcommand: its table of flags, the parser that
// reads words against that table, and the help and error lines made from it.
#ifndef CUSCOPE_LIB_CLI_FLAGS_H_
#define CUSCOPE_LIB_CLI_FLAGS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cuscope::cli {

inline constexpr int kUsageError = 2;

// One flag of a subcommand. A flag with a value is given as --name=V, --name V,
// -name=V or -name V (and -alias V, -alias=V); a switch (value_name null) as
// --name, --noname, --no-name or --name=BOOL (true/false, yes/no, 1/0, t/f, y/n).
// Dashes and underscores in a name are the same: --launch-skip is --launch_skip
// (nsys and ncu write dashes; the table's names have underscores).
struct Flag {
  const char* name;        // "output", "launch_skip"
  const char* alias;       // "o", or null
  const char* value_name;  // "FILE" in the help; null for a switch
  std::string help;        // what it does, one sentence or two
};

// What the words gave: each flag's last value ("true"/"false" for a switch), and
// the words that are not flags, in order.
struct Args {
  std::map<std::string, std::string> values;     // by the table's name
  std::map<std::string, std::string> spellings;  // by the table's name: "--launch-skip"
  std::vector<std::string> positional;
  // With ParseMode::kProgramFollows: the program and its arguments (from the first
  // word that is not a flag, or after "--"); -h/--help seen before them.
  std::vector<std::string> program;
  bool help = false;

  // The flag's value, or `otherwise` when it was not given.
  std::string Get(const std::string& name, const std::string& otherwise = "") const;
};

// kWords: every word is read (main.cc has split off what follows "--").
// kProgramFollows (`cuscope run`): the first word that is not a flag, or "--", ends
// the flags; the rest is the program (Args::program), and -h/--help sets Args::help.
enum class ParseMode { kWords, kProgramFollows };

// Reads `words` (those after the subcommand) against `flags`. An unknown flag (with
// the nearest names when some are close: "did you mean --launch-skip?"), a flag
// without its value or a switch with a value that is not a boolean gives
// InvalidArgument with one line naming it.
absl::StatusOr<Args> ParseArgs(const std::vector<Flag>& flags,
                               const std::vector<std::string>& words,
                               ParseMode mode = ParseMode::kWords);

// How a table name is written in help and docs: "launch_skip" -> "launch-skip".
std::string Dashed(absl::string_view name);

// "; did you mean A or B?" naming the `candidates` nearest to `given` by edit
// distance (after dashes become underscores), close enough to be a typo; "" if none.
std::string Suggestion(absl::string_view given, const std::vector<std::string>& candidates,
                       absl::string_view prefix = "--");

// `text` cut into lines of at most `width` characters, each but the first starting
// with `indent` spaces, the last ending in '\n'.
std::string Wrap(absl::string_view text, int indent, int width = 80);

// Help and usage lines are at most this wide (tests/unit/cli_test.cc checks).
inline constexpr int kHelpWidth = 100;

// The help of one subcommand: its usage line, what it does and its flags.
std::string CommandHelp(absl::string_view usage, absl::string_view description,
                        const std::vector<Flag>& flags);

// --top of report and diff: "" leaves `top` as it is, else an integer >= 0. False
// after a usage error line.
bool ParseTop(absl::string_view command, const std::string& text, int* top);

// --width of report and diff: the columns of the text, 0 for no limit, or from 60; ""
// is the terminal's width when stdout is one (at least 60), else 100. False after a
// usage error line.
bool ParseWidth(absl::string_view command, const std::string& text, size_t* width);

// "cuscope: COMMAND: MESSAGE" and where the help is, on stderr; returns kUsageError.
int UsageError(absl::string_view command, absl::string_view message);

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_FLAGS_H_
