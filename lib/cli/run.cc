// `cuscope run [FLAGS] [--] PROGRAM`: runs a program with cuscope injected. Its flags
// are the settings (run_flags.h).
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/cli/child.h"
#include "lib/cli/commands.h"
#include "lib/cli/flags.h"
#include "lib/cli/library.h"
#include "lib/cli/output.h"
#include "lib/cli/run_flags.h"
#include "lib/config/config.h"
#include "lib/config/env_names.h"
#include "lib/config/from_env.h"
#include "lib/config/setting.h"

namespace cuscope::cli {
namespace {

std::string Help() {
  std::string out = absl::StrCat(
      "usage: ", kRunCommand.usage, "\n\n", Wrap(kRunCommand.summary, 0), "\n",
      Wrap("flags (each is also an environment variable, read when cuscope is injected "
           "without this command: CUDA_INJECTION64_PATH=/path/to/libcuscope.so; a flag "
           "wins over the variable; docs/configuration.md). A yes/no flag is a switch: "
           "--verbose, --no-verbose or --verbose=0, never followed by its value:",
           0));
  for (size_t i = 0; i < config::Settings().size(); ++i) {
    const config::Setting& s = config::Settings()[i];
    std::string def = s.default_text();
    const char* alias = RunFlagTable()[i].spec.alias;
    std::string spelling =
        absl::StrCat(alias != nullptr ? absl::StrCat("-", alias, ", ") : "", "--", Dashed(s.flag));
    absl::StrAppend(&out, absl::StrFormat("  %-20s %s\n", spelling, s.env), std::string(23, ' '),
                    Wrap(s.help, 23), std::string(23, ' '),
                    Wrap(absl::StrCat("accepts: ", s.value.accepts,
                                      "; default: ", def.empty() ? "(empty)" : def),
                         23));
  }
  return out;
}

// The settings given as flags, with the environment: 0 with `config` the library will
// read, else a usage error line and its code. Variables already in the environment
// are checked too: the library would otherwise disable itself silently in the child.
int CheckSettings(const std::vector<GivenSetting>& given, config::Config* config) {
  absl::StatusOr<config::Config> read = config::ConfigFromEnv([&](const char* name) {
    for (const GivenSetting& g : given) {
      if (name == std::string(g.setting->env)) return g.value.c_str();
    }
    return static_cast<const char*>(std::getenv(name));
  });
  if (!read.ok()) return UsageError("run", read.status().message());
  *config = *std::move(read);
  return 0;
}

// The metric names, checked through libcuscope.so before the program starts: for the
// chip of GPU 0, or, when none is visible (or cuscope does not know it), against
// every supported chip. 0, or an error line and its code.
int CheckMetrics(const config::Config& config) {
  if (!config.enabled || !config.counters_enabled()) return 0;
  absl::StatusOr<MetricsLibrary> lib = MetricsLibrary::Load();
  if (!lib.ok()) {
    std::cerr << "cuscope: run: " << lib.status().message() << "\n";
    return 1;
  }
  const std::string request = absl::StrJoin(config.metrics, ",");
  absl::StatusOr<std::string> chip = lib->VisibleChip(nullptr);
  absl::Status st = absl::UnavailableError("no GPU visible");
  if (chip.ok() && !chip->empty()) st = lib->Check(*chip, request);
  if (absl::IsUnavailable(st)) st = lib->Check("", request);
  if (st.ok()) return 0;
  if (absl::IsInvalidArgument(st))
    return UsageError("run", absl::StrCat("--metrics: ", st.message()));
  std::cerr << "cuscope: run: checking --metrics: " << st.message() << "\n";
  return 1;
}

// The file where each profiled process says what it left (lib/inject/run_end.h).
class RunLog {
 public:
  RunLog() {
    const char* tmp = std::getenv("TMPDIR");
    std::string path =
        absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp", "/cuscope-run-XXXXXX");
    int fd = mkstemp(path.data());
    if (fd < 0) return;  // then the command cannot tell: it says nothing
    close(fd);
    path_ = path;
  }
  const std::string& path() const { return path_; }

  // After the program: the one line when no process wrote a profile (and none said
  // that it could not start profiling: that process has said so).
  void Finish() {
    if (path_.empty()) return;
    std::ifstream in(path_);
    bool said = false;
    for (std::string line; std::getline(in, line);) {
      said |= line.rfind("written ", 0) == 0 || line.rfind("failed ", 0) == 0;
    }
    unlink(path_.c_str());
    if (!said) std::cerr << "cuscope: no CUDA work was seen: nothing to profile\n";
  }

 private:
  std::string path_;
};

// With --pytorch: the hook's folder first on PYTHONPATH (its sitecustomize chains to
// the next one on the path). Torch's ranges need NVTX recorded.
int AddPythonHook(const config::Config& config) {
  if (!config.pytorch) return 0;
  if (!config.trace.nvtx) {
    std::cerr << "cuscope: --pytorch needs NVTX ranges recorded (--trace with nvtx)\n";
    return 2;
  }
  const std::string hook = FindPythonHook();
  if (hook.empty()) {
    std::cerr << "cuscope: the PyTorch hook (share/cuscope/python) is not next to " << SelfDir()
              << "; set CUSCOPE_PYTHON_HOOK to its folder\n";
    return 1;
  }
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = old != nullptr && *old != '\0' ? hook + ":" + old : hook;
  setenv("PYTHONPATH", path.c_str(), 1);
  setenv("CUSCOPE_PYTORCH", "1", 1);
  return 0;
}

int Main(const std::vector<std::string>& words, const std::vector<std::string>& program) {
  RunFlags flags;
  absl::StatusOr<Words> args =
      ParseFlags(RunFlagTable(), words, &flags, ParseMode::kProgramFollows);
  if (!args.ok()) return UsageError("run", args.status().message());
  if (args->help) {
    std::cout << Help();
    return 0;
  }
  if (args->program.empty() && program.empty()) {
    return UsageError("run", "expected PROGRAM [ARGS...] (or -- PROGRAM [ARGS...])");
  }
  // The program's processes inherit these and stay silent (CUSCOPE_OWNER_PID is set).
  for (const std::string& line : config::UnknownVariableWarnings(environ)) {
    std::cerr << "cuscope: " << line << "\n";
  }
  const std::vector<GivenSetting>& given = flags.given;
  config::Config config;
  if (int code = CheckSettings(given, &config); code != 0) return code;
  std::string output = config.output.empty() ? config::kDefaultOutput : config.output;
  if (int code = CheckProfilePath(output); code != 0) return code;
  std::string lib = FindLibrary();
  if (lib.empty()) {
    std::cerr << "cuscope: libcuscope.so not found next to " << SelfDir()
              << " (looked in ../lib); set CUSCOPE_LIBRARY to its path\n";
    return 1;
  }
  if (int code = CheckMetrics(config); code != 0) return code;
  for (const GivenSetting& g : given) setenv(g.setting->env, g.value.c_str(), 1);
  setenv("CUDA_INJECTION64_PATH", lib.c_str(), 1);
  if (config.trace.nvtx) setenv("NVTX_INJECTION64_PATH", lib.c_str(), 1);
  if (int code = AddPythonHook(config); code != 0) return code;
  unsetenv("CUSCOPE_OWNER_PID");
  const std::vector<std::string>& run = args->program.empty() ? program : args->program;
  unsetenv("CUSCOPE_RUN_LOG");
  // Each process ends its run (the profile read back for the findings and the report)
  // in a process of this command, not in its own memory (lib/inject/end_process.h).
  if (std::string self = SelfPath(); !self.empty()) setenv("CUSCOPE_COMMAND", self.c_str(), 1);
  if (!config.enabled) return RunChild(run);
  RunLog log;
  if (!log.path().empty()) setenv("CUSCOPE_RUN_LOG", log.path().c_str(), 1);
  return RunChild(run, [&log] { log.Finish(); });
}

}  // namespace

const Command kRunCommand = {
    "run",
    "cuscope run [FLAGS] [--] PROGRAM [ARGS...]",
    "Runs PROGRAM (a CUDA binary, or python3 script.py) with cuscope injected, writes the "
    "profile (SQLite) and prints a report on stderr at the end. The first word that is not "
    "a flag is PROGRAM: it and every word after it are the program's (-- before it is "
    "optional). The program's exit code is passed through.",
    true,
    Help,
    Main};

}  // namespace cuscope::cli
