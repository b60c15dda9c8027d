#include "lib/inject/end_process.h"

#include <dlfcn.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cuscope/version.h"
#include "lib/config/setting.h"
#include "lib/inject/warn.h"

namespace cuscope::inject {
namespace {

// The command's exit codes that mean it did nothing (lib/cli/end_run.cc): a usage
// error (a `cuscope` that has no _end-run), another version, not executable.
constexpr int kUsageError = 2;
constexpr int kOtherVersion = 3;
constexpr int kCannotRun = 127;

bool IsExecutable(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

// The absolute path of `path`, or "" when it does not resolve.
std::string Absolute(const std::string& path) {
  char resolved[PATH_MAX];
  return realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

// The file that holds this code when it is libcuscope.so ("" in a program or test that
// links the session's code itself).
std::string LibraryPath() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&FindEndCommand), &info) == 0 || info.dli_fname == nullptr) {
    return "";
  }
  const std::string path = info.dli_fname;
  const std::string name = path.substr(path.rfind('/') + 1);
  return absl::StartsWith(name, "libcuscope.so") ? Absolute(path) : "";
}

// This process's environment for the command: without CUSCOPE_* variables and the
// injection paths, with the settings that the end reads (the advisor's and the
// report's) as `config` has them.
std::vector<std::string> EndEnvironment(const config::Config& config) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const absl::string_view entry = *e;
    if (absl::StartsWith(entry, "CUSCOPE_") || absl::StartsWith(entry, "CUDA_INJECTION64_PATH=") ||
        absl::StartsWith(entry, "NVTX_INJECTION64_PATH=")) {
      continue;
    }
    env.emplace_back(entry);
  }
  for (const config::Setting& s : config::Settings()) {
    const absl::string_view name = s.env;
    if (absl::StartsWith(name, "CUSCOPE_ADVISE") || absl::StartsWith(name, "CUSCOPE_REPORT")) {
      env.push_back(absl::StrCat(name, "=", s.value.format(config)));
    }
  }
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& words) {
  std::vector<char*> out;
  for (std::string& w : words) out.push_back(w.data());
  out.push_back(nullptr);
  return out;
}

// Starts `args` with `env`, every signal unblocked in it; its pid, or -1.
pid_t Spawn(std::vector<std::string>& args, std::vector<std::string>& env) {
  std::vector<char*> argv = Pointers(args), envp = Pointers(env);
  posix_spawnattr_t attr;
  if (posix_spawnattr_init(&attr) != 0) return -1;
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

}  // namespace

std::string FindEndCommand(const config::GetEnv& getenv) {
  const char* named = getenv("CUSCOPE_COMMAND");
  if (named != nullptr && IsExecutable(named)) return Absolute(named);
  const std::string library = LibraryPath();
  if (library.empty()) return "";
  const std::string dir = library.substr(0, library.rfind('/'));
  for (const char* rel : {"/../bin/cuscope", "/cuscope"}) {
    if (IsExecutable(dir + rel)) return Absolute(dir + rel);
  }
  return "";
}

EndOutcome RunEndProcess(const std::string& command, const std::string& path,
                         const config::Config& config, bool print_report) {
  std::vector<std::string> args = {command, "_end-run", path,
                                   absl::StrCat("--library-version=", CUSCOPE_VERSION_STRING)};
  if (print_report) args.push_back("--report");
  std::vector<std::string> env = EndEnvironment(config);
  const pid_t pid = Spawn(args, env);
  if (pid < 0) return EndOutcome::kNotRun;
  if (config.verbose) Warn(absl::StrCat("ending the run in pid ", pid, ": ", command, " _end-run"));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    // ECHILD: the program reaps its children itself (or ignores SIGCHLD), so the
    // command has ended, with a status this process cannot know.
    if (errno != EINTR) return EndOutcome::kDone;
  }
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    if (code == kUsageError || code == kOtherVersion || code == kCannotRun) {
      return EndOutcome::kNotRun;
    }
    // 1: it said why it could not read the profile back.
    return EndOutcome::kDone;
  }
  if (WIFSIGNALED(status)) {
    Warn(absl::StrCat("the run's end (", command, " _end-run) ended by signal ", WTERMSIG(status),
                      ": no findings stored and no report; `cuscope report ", path, "` prints it"));
  }
  return EndOutcome::kDone;
}

}  // namespace cuscope::inject
