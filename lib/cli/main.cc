// The `cuscope` command: run a program under the profiler, report a profile,
// export a trace.
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cuscope/version.h"
#include "lib/config/config.h"
#include "lib/config/setting.h"
#include "lib/model/store.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/report.h"
#include "lib/report/roofline_svg.h"

// `cuscope run`: one flag per CUSCOPE_* setting; "" means not given (the
// environment or the default applies).
ABSL_FLAG(std::string, output, "", "run: profile path (CUSCOPE_OUTPUT); report/export: output file");
ABSL_FLAG(std::string, trace, "", "run: activity kinds (CUSCOPE_TRACE)");
ABSL_FLAG(std::string, api, "", "run: API calls recorded (CUSCOPE_API)");
ABSL_FLAG(std::string, report, "", "run: report at the end (CUSCOPE_REPORT)");
ABSL_FLAG(std::string, top, "", "run/report: rows per table (CUSCOPE_REPORT_TOP)");
ABSL_FLAG(std::string, buffer_size, "", "run: activity buffer size (CUSCOPE_BUFFER_SIZE)");
ABSL_FLAG(std::string, max_buffers, "", "run: buffer cap (CUSCOPE_MAX_BUFFERS)");
ABSL_FLAG(std::string, flush_period_ms, "", "run: flush period (CUSCOPE_FLUSH_PERIOD_MS)");
ABSL_FLAG(std::string, verbose, "", "run: verbose (CUSCOPE_VERBOSE)");
ABSL_FLAG(std::string, enable, "", "run: 0 to run without profiling (CUSCOPE_ENABLE)");
ABSL_FLAG(std::string, metrics, "", "run: hardware counters (CUSCOPE_METRICS)");
ABSL_FLAG(std::string, kernels, "", "run: kernel-name regex for counters (CUSCOPE_KERNELS)");
ABSL_FLAG(std::string, launch_skip, "", "run: launches skipped (CUSCOPE_LAUNCH_SKIP)");
ABSL_FLAG(std::string, launch_count, "", "run: launches measured (CUSCOPE_LAUNCH_COUNT)");
ABSL_FLAG(std::string, per_signature, "", "run: samples per signature (CUSCOPE_PER_SIGNATURE)");
ABSL_FLAG(std::string, replay, "", "run: auto, rotate or kernel (CUSCOPE_REPLAY)");
ABSL_FLAG(std::string, window, "", "run: rotate window (CUSCOPE_WINDOW)");
ABSL_FLAG(std::string, capture, "", "run: what to record (CUSCOPE_CAPTURE)");
ABSL_FLAG(std::string, regions, "", "run: counters only inside these regions (CUSCOPE_REGIONS)");
ABSL_FLAG(std::string, region_counters, "", "run: measure matching regions as a whole (CUSCOPE_REGION_COUNTERS)");
ABSL_FLAG(std::string, roofline, "", "report: also write the roofline chart (SVG) here");
ABSL_FLAG(std::string, format, "text", "report: text, csv or json");
ABSL_FLAG(bool, chrome, false, "export: write a Chrome trace (Perfetto, HTA)");

namespace {

constexpr int kUsageError = 2;

std::string SettingsHelp() {
  std::string out;
  for (const auto& s : cuscope::config::Settings()) {
    absl::StrAppend(&out, absl::StrFormat("  --%-16s %s\n  %-18s  %s\n  %-18s  accepts: %s; default: %s\n",
                                          s.flag, s.env, "", s.help, "", s.value.accepts,
                                          s.default_text()));
  }
  return out;
}

std::string Usage() {
  return absl::StrCat(
      "cuscope ", CUSCOPE_VERSION_STRING, ": GPU timeline and kernel summary for CUDA programs\n\n"
      "usage:\n"
      "  cuscope run [FLAGS] -- PROGRAM [ARGS...]\n"
      "      Runs PROGRAM (a CUDA binary, or python3 script.py) with cuscope injected,\n"
      "      writes the profile (SQLite) and prints a report on stderr at the end.\n"
      "      The program's exit code is passed through.\n"
      "  cuscope report PROFILE [--format=text|csv|json] [--top=N] [--output=FILE]\n"
      "                 [--roofline=chart.svg]\n"
      "      Prints the kernel, API, memory and region summaries of a profile, and with\n"
      "      counters the ceilings, the roofline and the verdict of each kernel.\n"
      "  cuscope diff BASE NEW [--format=text|json] [--top=N] [--output=FILE]\n"
      "      What changed between two profiles: wall and kernel time, then kernels and\n"
      "      regions ranked by the change of their total time.\n"
      "  cuscope export PROFILE --chrome [--output=trace.json]\n"
      "      Writes a Chrome trace that opens in Perfetto UI (ui.perfetto.dev) and HTA.\n"
      "  cuscope help | --help | --version\n\n"
      "flags of `run` (each is also an environment variable, for injecting without\n"
      "this command: CUDA_INJECTION64_PATH=/path/to/libcuscope.so):\n",
      SettingsHelp(),
      "\nflags of `report` and `export`:\n"
      "  --format   text, csv or json (report; default text)\n"
      "  --top      rows per table, 0 for all (report; default 10)\n"
      "  --output   file to write (-o also works); default stdout for report,\n"
      "             PROFILE with .trace.json for export\n"
      "  --chrome   export a Chrome trace\n"
      "  --roofline also write the roofline chart (SVG; needs --metrics=roofline)\n\n"
      "exit codes: the program's own for `run`; 0 ok, 1 error, 2 usage error otherwise.\n");
}

int UsageError(const std::string& message) {
  std::cerr << "cuscope: " << message << "\n(run `cuscope --help` for usage)\n";
  return kUsageError;
}

// Rewrites "-o X" to "--output=X" (absl flags have no short names).
std::vector<char*> PrepareArgs(int argc, char** argv, std::vector<std::string>* storage) {
  storage->reserve(argc);
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];  // main cut `run`'s program off at "--" already
    if (a == "--chrome" || a == "-chrome") {
      storage->push_back("--chrome=true");  // a bare bool flag must not take the next word
    } else if (a == "-o" && i + 1 < argc) {
      storage->push_back(absl::StrCat("--output=", argv[++i]));
    } else if (absl::StartsWith(a, "-o=")) {
      storage->push_back(absl::StrCat("--output=", a.substr(3)));
    } else {
      storage->push_back(a);
    }
  }
  std::vector<char*> out;
  for (auto& s : *storage) out.push_back(s.data());
  return out;
}

std::string SelfDir() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string p(buf, n);
  return p.substr(0, p.rfind('/'));
}

bool FileExists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string FindLibrary() {
  if (const char* env = std::getenv("CUSCOPE_LIBRARY")) return env;
  std::string dir = SelfDir();
  for (const char* rel : {"/../lib/libcuscope.so", "/../lib64/libcuscope.so",
                          "/libcuscope.so", "/../lib/x86_64-linux-gnu/libcuscope.so"}) {
    std::string p = dir + rel;
    if (FileExists(p)) {
      // An absolute path, keeping the file name (libcuscope.so, not its soname target).
      std::string folder = p.substr(0, p.rfind('/'));
      char resolved[4096];
      if (realpath(folder.c_str(), resolved) != nullptr) return std::string(resolved) + p.substr(p.rfind('/'));
      return p;
    }
  }
  return "";
}

pid_t g_child = 0;
void ForwardSignal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

int Run(const std::vector<std::string>& program) {
  if (program.empty()) return UsageError("run: expected -- PROGRAM [ARGS...]");
  struct Pair {
    const char* env;
    const char* flag;
    std::string value;
  };
  // Every setting's flag (the Settings table is the one list; flags are declared
  // above with the same names).
  std::vector<Pair> settings;
  for (const auto& info : cuscope::config::Settings()) {
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(info.flag);
    settings.push_back(
        {info.env, info.flag, flag != nullptr ? flag->CurrentValue() : std::string()});
  }
  for (const auto& s : settings) {
    if (s.value.empty()) continue;
    absl::Status st = cuscope::config::ValidateSetting(s.env, s.value);
    if (!st.ok()) return UsageError(absl::StrCat("run: --", s.flag, ": ", st.message()));
  }
  // Variables already in the environment are checked too: the library would
  // otherwise disable itself silently in the child.
  absl::StatusOr<cuscope::config::Config> env_config =
      cuscope::config::ConfigFromEnv([&](const char* name) -> const char* {
        for (const auto& s : settings) {
          if (!s.value.empty() && name == std::string(s.env)) return s.value.c_str();
        }
        return std::getenv(name);
      });
  if (!env_config.ok()) return UsageError(absl::StrCat("run: ", env_config.status().message()));

  std::string lib = FindLibrary();
  if (lib.empty()) {
    std::cerr << "cuscope: libcuscope.so not found next to " << SelfDir()
              << " (looked in ../lib); set CUSCOPE_LIBRARY to its path\n";
    return 1;
  }
  for (const auto& s : settings) {
    if (!s.value.empty()) setenv(s.env, s.value.c_str(), 1);
  }
  setenv("CUDA_INJECTION64_PATH", lib.c_str(), 1);
  if (env_config->trace.nvtx) setenv("NVTX_INJECTION64_PATH", lib.c_str(), 1);
  unsetenv("CUSCOPE_OWNER_PID");

  // Forwarding is in place before the child exists; the child gets back the
  // dispositions this command inherited.
  const int kSignals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
  struct sigaction inherited[4];
  for (int i = 0; i < 4; ++i) {
    struct sigaction sa = {};
    sa.sa_handler = (kSignals[i] == SIGINT || kSignals[i] == SIGQUIT) ? SIG_IGN : ForwardSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(kSignals[i], &sa, &inherited[i]);
  }
  pid_t child = fork();
  if (child < 0) {
    std::cerr << "cuscope: fork failed: " << std::strerror(errno) << "\n";
    return 1;
  }
  if (child == 0) {
    for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &inherited[i], nullptr);
    setenv("CUSCOPE_OWNER_PID", std::to_string(getpid()).c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : program) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cuscope: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  // Ctrl-C reaches the whole process group: the program handles it; we wait.
  g_child = child;
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      std::cerr << "cuscope: waitpid failed: " << std::strerror(errno) << "\n";
      return 1;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    // End the way the program ended, without a core of our own (it could replace
    // the program's core file).
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    signal(sig, SIG_DFL);
    raise(sig);
    return 128 + sig;
  }
  return 1;
}

// --top, shared by report and diff: false (after a usage error line) if invalid.
bool ParseTop(const char* command, cuscope::report::ReportOptions* options) {
  std::string top = absl::GetFlag(FLAGS_top);
  if (top.empty() || (absl::SimpleAtoi(top, &options->top) && options->top >= 0)) return true;
  UsageError(absl::StrCat(command, ": --top=\"", top,
                          "\" is not valid; accepted: an integer >= 0 (0 = all)"));
  return false;
}

// --output, shared by report and diff: stdout, or `file` opened at the path; null
// (after an error line) if it cannot be written.
std::ostream* OpenOutput(const char* command, std::ofstream& file) {
  std::string out_path = absl::GetFlag(FLAGS_output);
  if (out_path.empty() || out_path == "-") return &std::cout;
  file.open(out_path);
  if (!file) {
    std::cerr << "cuscope: " << command << ": cannot write " << out_path << ": "
              << std::strerror(errno) << "\n";
    return nullptr;
  }
  return &file;
}

int Report(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(absl::StrCat("report: expected exactly one PROFILE argument, got ",
                                   args.size()));
  }
  std::string format = absl::AsciiStrToLower(absl::GetFlag(FLAGS_format));
  if (format != "text" && format != "csv" && format != "json") {
    return UsageError(absl::StrCat("report: --format=\"", absl::GetFlag(FLAGS_format),
                                   "\" is not valid; accepted: text, csv, json"));
  }
  cuscope::report::ReportOptions options;
  if (!ParseTop("report", &options)) return kUsageError;
  absl::StatusOr<cuscope::model::Profile> profile = cuscope::model::LoadProfile(args[0]);
  if (!profile.ok()) {
    std::cerr << "cuscope: report: " << profile.status().message() << "\n";
    return 1;
  }
  cuscope::report::ReportData data = cuscope::report::BuildReport(*profile);
  std::ofstream file;
  std::ostream* out = OpenOutput("report", file);
  if (out == nullptr) return 1;
  std::string svg = absl::GetFlag(FLAGS_roofline);
  if (!svg.empty()) {
    absl::Status st =
        cuscope::report::WriteRooflineSvg(*profile, data.ceilings, data.counters, svg);
    if (!st.ok()) {
      std::cerr << "cuscope: report: --roofline: " << st.message() << "\n";
      return 1;
    }
    std::cerr << "cuscope: roofline chart written to " << svg << "\n";
  }
  if (format == "text") cuscope::report::WriteText(data, options, *out);
  else if (format == "csv") cuscope::report::WriteCsv(data, options, *out);
  else cuscope::report::WriteJson(data, options, *out);
  out->flush();
  if (!*out) {
    std::cerr << "cuscope: report: writing failed\n";
    return 1;
  }
  return 0;
}

int Diff(const std::vector<std::string>& args) {
  if (args.size() != 2) {
    return UsageError(absl::StrCat("diff: expected BASE and NEW profiles, got ", args.size(),
                                   " arguments"));
  }
  std::string format = absl::AsciiStrToLower(absl::GetFlag(FLAGS_format));
  if (format != "text" && format != "json") {
    return UsageError(absl::StrCat("diff: --format=\"", absl::GetFlag(FLAGS_format),
                                   "\" is not valid; accepted: text, json"));
  }
  cuscope::report::ReportOptions options;
  if (!ParseTop("diff", &options)) return kUsageError;
  absl::StatusOr<cuscope::model::Profile> base = cuscope::model::LoadProfile(args[0]);
  if (!base.ok()) {
    std::cerr << "cuscope: diff: " << base.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<cuscope::model::Profile> next = cuscope::model::LoadProfile(args[1]);
  if (!next.ok()) {
    std::cerr << "cuscope: diff: " << next.status().message() << "\n";
    return 1;
  }
  cuscope::analysis::Comparison c = cuscope::analysis::Compare(*base, *next);
  std::ofstream file;
  std::ostream* out = OpenOutput("diff", file);
  if (out == nullptr) return 1;
  if (format == "text") {
    cuscope::report::WriteComparisonText(c, args[0], args[1], options, *out);
  } else {
    cuscope::report::WriteComparisonJson(c, args[0], args[1], options, *out);
  }
  out->flush();
  return *out ? 0 : 1;
}

int Export(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return UsageError(absl::StrCat("export: expected exactly one PROFILE argument, got ",
                                   args.size()));
  }
  if (!absl::GetFlag(FLAGS_chrome)) {
    return UsageError("export: choose a format: --chrome (a Chrome trace for Perfetto and HTA)");
  }
  std::string out_path = absl::GetFlag(FLAGS_output);
  if (out_path.empty()) {
    out_path = args[0];
    size_t dot = out_path.rfind('.');
    size_t slash = out_path.rfind('/');
    if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
      out_path.resize(dot);
    }
    out_path += ".trace.json";
  }
  absl::StatusOr<cuscope::model::Profile> profile = cuscope::model::LoadProfile(args[0]);
  if (!profile.ok()) {
    std::cerr << "cuscope: export: " << profile.status().message() << "\n";
    return 1;
  }
  cuscope::report::ChromeTraceStats stats;
  absl::Status st = cuscope::report::WriteChromeTrace(*profile, out_path, &stats);
  if (!st.ok()) {
    std::cerr << "cuscope: export: " << st.message() << "\n";
    return 1;
  }
  if (out_path != "-") {
    std::cerr << "cuscope: wrote " << stats.events << " events to " << out_path << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(Usage());
  if (argc < 2) {
    std::cerr << Usage();
    return kUsageError;
  }
  std::string command = argv[1];
  if (command == "help" || command == "--help" || command == "-h" || command == "-help") {
    std::cout << Usage();
    return 0;
  }
  if (command == "--version" || command == "version") {
    std::cout << "cuscope " << CUSCOPE_VERSION_STRING << "\n";
    return 0;
  }
  if (command != "run" && command != "report" && command != "export" && command != "diff") {
    return UsageError(absl::StrCat("unknown command \"", command,
                                   "\"; accepted: run, report, diff, export, help"));
  }
  // Split `run`'s program off at "--" before flags are parsed.
  std::vector<std::string> program;
  int flag_argc = argc;
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      flag_argc = i;
      for (int j = i + 1; j < argc; ++j) program.push_back(argv[j]);
      break;
    }
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << Usage();
      return 0;
    }
  }
  if (command != "run" && !program.empty()) {
    return UsageError(absl::StrCat(command, ": unexpected arguments after --"));
  }
  std::vector<std::string> storage;
  std::vector<char*> raw = {argv[0]};
  for (int i = 2; i < flag_argc; ++i) raw.push_back(argv[i]);
  std::vector<char*> prepared = PrepareArgs(static_cast<int>(raw.size()), raw.data(), &storage);
  // Unknown flags are a usage error (exit 2) naming the flag.
  std::vector<std::string> known_flags = {"format", "chrome", "nochrome", "roofline"};
  for (const auto& info : cuscope::config::Settings()) known_flags.push_back(info.flag);
  for (size_t i = 1; i < prepared.size(); ++i) {
    std::string a = prepared[i];
    if (a.size() < 2 || a[0] != '-') continue;
    std::string name = a.substr(a[1] == '-' ? 2 : 1);
    name = name.substr(0, name.find('='));
    bool known = false;
    for (const std::string& k : known_flags) known = known || name == k;
    if (!known) return UsageError(absl::StrCat(command, ": unknown flag ", a));
  }
  std::vector<std::string> positional;
  for (char* p : absl::ParseCommandLine(static_cast<int>(prepared.size()), prepared.data())) {
    positional.push_back(p);
  }
  positional.erase(positional.begin());
  if (command == "run") {
    if (!positional.empty()) {
      return UsageError(absl::StrCat("run: \"", positional[0],
                                     "\" before --; write cuscope run [FLAGS] -- PROGRAM [ARGS...]"));
    }
    return Run(program);
  }
  if (command == "report") return Report(positional);
  if (command == "diff") return Diff(positional);
  return Export(positional);
}
