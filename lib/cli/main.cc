// The `cuscope` command: dispatches to its subcommands (commands.h), each with its
// own flags and help.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cuscope/version.h"
#include "lib/cli/commands.h"
#include "lib/cli/flags.h"

namespace {

using cuscope::cli::Command;

const Command* const kCommands[] = {&cuscope::cli::kRunCommand,     &cuscope::cli::kReportCommand,
                                    &cuscope::cli::kDiffCommand,    &cuscope::cli::kExportCommand,
                                    &cuscope::cli::kMetricsCommand, &cuscope::cli::kAdviseCommand};

const Command* FindCommand(const std::string& name) {
  for (const Command* c : kCommands) {
    if (name == c->name) return c;
  }
  if (name == cuscope::cli::kEndRunCommand.name) return &cuscope::cli::kEndRunCommand;
  return nullptr;
}

std::string Usage() {
  std::string out = absl::StrCat("cuscope ", CUSCOPE_VERSION_STRING,
                                 ": GPU timeline and kernel summary for CUDA programs\n\nusage:\n");
  for (const Command* c : kCommands) {
    absl::StrAppend(&out, "  ", c->usage, "\n      ", cuscope::cli::Wrap(c->summary, 6));
  }
  absl::StrAppend(&out,
                  "  cuscope help [COMMAND] | --help | --version\n\n"
                  "`cuscope COMMAND --help` (or `cuscope help COMMAND`) lists the flags of "
                  "COMMAND\n(those of run are the settings, docs/configuration.md). Flags are "
                  "written\n--launch-skip or --launch_skip, --top=5 or --top 5.\n\n"
                  "exit codes: the program's own for `run`; 0 ok, 1 error, 2 usage error "
                  "otherwise.\n");
  return out;
}

bool IsHelp(const std::string& word) { return word == "--help" || word == "-h" || word == "-help"; }

int UnknownCommand(const std::string& name) {
  std::vector<std::string> names = {"help"};
  std::string accepted;
  for (const Command* c : kCommands) {
    names.push_back(c->name);
    absl::StrAppend(&accepted, c->name, ", ");
  }
  std::cerr << "cuscope: unknown command \"" << name << "\"; accepted: " << accepted << "help"
            << cuscope::cli::Suggestion(name, names, "") << "\n(run `cuscope --help` for usage)\n";
  return cuscope::cli::kUsageError;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << Usage();
    return cuscope::cli::kUsageError;
  }
  std::string name = argv[1];
  if (name == "help" || IsHelp(name)) {
    if (name == "help" && argc > 2) {
      const Command* c = FindCommand(argv[2]);
      if (c == nullptr) return UnknownCommand(argv[2]);
      std::cout << c->help();
      return 0;
    }
    std::cout << Usage();
    return 0;
  }
  if (name == "--version" || name == "version") {
    std::cout << "cuscope " << CUSCOPE_VERSION_STRING << "\n";
    return 0;
  }
  const Command* command = FindCommand(name);
  if (command == nullptr) return UnknownCommand(name);
  std::vector<std::string> words, program;
  if (command->takes_program) {
    // The command finds where its flags end and the program starts (flags.h).
    return command->main(std::vector<std::string>(argv + 2, argv + argc), program);
  }
  // The words up to "--" are the command's.
  int i = 2;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    if (IsHelp(argv[i])) {
      std::cout << command->help();
      return 0;
    }
    words.push_back(argv[i]);
  }
  for (++i; i < argc; ++i) program.push_back(argv[i]);
  if (!program.empty()) return cuscope::cli::UsageError(name, "unexpected arguments after --");
  return command->main(words, program);
}
