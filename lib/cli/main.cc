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
                  "`cuscope COMMAND --help` lists the flags of COMMAND (those of run are the\n"
                  "settings, docs/configuration.md).\n\n"
                  "exit codes: the program's own for `run`; 0 ok, 1 error, 2 usage error "
                  "otherwise.\n");
  return out;
}

bool IsHelp(const std::string& word) { return word == "--help" || word == "-h" || word == "-help"; }

int UnknownCommand(const std::string& name) {
  std::cerr << "cuscope: unknown command \"" << name
            << "\"; accepted: run, report, diff, export, metrics, advise, help\n(run `cuscope "
               "--help` for "
               "usage)\n";
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
  // The words up to "--" are the command's; after it, run's program.
  std::vector<std::string> words, program;
  int i = 2;
  for (; i < argc && std::string(argv[i]) != "--"; ++i) {
    if (IsHelp(argv[i])) {
      std::cout << command->help();
      return 0;
    }
    words.push_back(argv[i]);
  }
  for (++i; i < argc; ++i) program.push_back(argv[i]);
  if (!command->takes_program && !program.empty()) {
    return cuscope::cli::UsageError(name, "unexpected arguments after --");
  }
  return command->main(words, program);
}
