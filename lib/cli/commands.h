// The subcommands of `cuscope`, one file each (run.cc, report.cc, diff.cc,
// export.cc, metrics.cc, advise.cc); main.cc dispatches on the first word.
#ifndef CUSCOPE_LIB_CLI_COMMANDS_H_
#define CUSCOPE_LIB_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace cuscope::cli {

struct Command {
  const char* name;     // "report"
  const char* usage;    // "cuscope report PROFILE [FLAGS]"
  const char* summary;  // what it does, for `cuscope --help` and its own help
  // Runs a program (run only): `main` gets every word after the subcommand in `words`
  // and finds where the program starts itself (ParseMode::kProgramFollows).
  bool takes_program;
  // Its help: usage, summary and its flags only.
  std::string (*help)();
  // `words`: those after the subcommand, before "--"; `program`: those after "--"
  // (empty for a takes_program command, see above).
  // Returns the exit code.
  int (*main)(const std::vector<std::string>& words, const std::vector<std::string>& program);
};

extern const Command kRunCommand;
extern const Command kReportCommand;
extern const Command kDiffCommand;
extern const Command kExportCommand;
extern const Command kMetricsCommand;
extern const Command kAdviseCommand;
// Not listed by `cuscope --help`: libcuscope.so runs it (end_run.cc).
extern const Command kEndRunCommand;

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_COMMANDS_H_
