// The words of one `cuscope` subcommand read against its table of flags: what each
// flag is called and whether it takes a value, the parser of the words, and the help
// and error lines made from the table. Typed flags bound to an options struct
// (typed_flags.h) are built on it.
#ifndef CUSCOPE_LIB_CLI_FLAGS_H_
#define CUSCOPE_LIB_CLI_FLAGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cuscope::cli {

inline constexpr int kUsageError = 2;

// How one flag of a subcommand is written. A flag with a value is given as --name=V,
// --name V, -name=V or -name V (and -alias V, -alias=V); a switch (value_name null)
// as --name, --noname, --no-name or --name=BOOL (config::ParseBool's words), and it
// never takes the next word as its value. Dashes and underscores in a name are the
// same: --launch-skip is --launch_skip (nsys and ncu write dashes; the table's names
// have underscores).
struct FlagSpec {
  const char* name;        // "output", "launch_skip"
  const char* alias;       // "o", or null
  const char* value_name;  // "FILE" in the help; null for a switch
  std::string help;        // what it does, one sentence or two
};

// One flag as the words gave it.
struct GivenFlag {
  size_t index;  // in the table
  // The value as written; a switch's is "true" (--name), "false" (--no-name) or what
  // follows --name= (its flag checks it with config::ParseBool).
  std::string value;
  std::string spelling;  // the name as written: "--launch-skip", "-o"
};

// What the words gave: the flags in the order given, and the words that are not flags.
struct Words {
  std::vector<GivenFlag> flags;
  std::vector<std::string> positional;
  // With ParseMode::kProgramFollows: the program and its arguments (from the first
  // word that is not a flag, or after "--"); -h/--help seen before them.
  std::vector<std::string> program;
  bool help = false;
};

// kWords: every word is read (main.cc has split off what follows "--").
// kProgramFollows (`cuscope run`): the first word that is not a flag (nor the value
// of one), or "--", ends the flags; the rest is the program (Words::program), and
// -h/--help sets Words::help.
enum class ParseMode { kWords, kProgramFollows };

// Reads `words` (those after the subcommand) against `table`. An unknown flag (with
// the nearest names when some are close: "did you mean --launch-skip?") or a flag
// without its value gives InvalidArgument with one line naming it.
absl::StatusOr<Words> ReadWords(const std::vector<const FlagSpec*>& table,
                                const std::vector<std::string>& words, ParseMode mode);

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
                        const std::vector<const FlagSpec*>& table);

// "cuscope: COMMAND: MESSAGE" and where the help is, on stderr; returns kUsageError.
int UsageError(absl::string_view command, absl::string_view message);

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_FLAGS_H_
