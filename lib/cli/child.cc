#include "lib/cli/child.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace cuscope::cli {
namespace {

bool FileExists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

pid_t g_child = 0;
void ForwardSignal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

// Waits for `child`; its exit code, or this process ends by the signal that ended it.
int WaitFor(pid_t child, const std::function<void()>& at_end) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      std::cerr << "cuscope: waitpid failed: " << std::strerror(errno) << "\n";
      return 1;
    }
  }
  if (at_end) at_end();
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

}  // namespace

std::string SelfPath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n <= 0 ? "" : std::string(buf, n);
}

std::string SelfDir() {
  std::string p = SelfPath();
  if (p.empty()) return ".";
  return p.substr(0, p.rfind('/'));
}

std::string FindPythonHook() {
  if (const char* env = std::getenv("CUSCOPE_PYTHON_HOOK")) return env;
  std::string p = SelfDir() + "/../share/cuscope/python";
  if (!FileExists(p + "/sitecustomize.py")) return "";
  char resolved[4096];
  return realpath(p.c_str(), resolved) != nullptr ? std::string(resolved) : p;
}

std::string FindLibrary() {
  if (const char* env = std::getenv("CUSCOPE_LIBRARY")) return env;
  std::string dir = SelfDir();
  for (const char* rel : {"/../lib/libcuscope.so", "/../lib64/libcuscope.so", "/libcuscope.so",
                          "/../lib/x86_64-linux-gnu/libcuscope.so"}) {
    std::string p = dir + rel;
    if (FileExists(p)) {
      // An absolute path, keeping the file name (libcuscope.so, not its soname target).
      std::string folder = p.substr(0, p.rfind('/'));
      char resolved[4096];
      if (realpath(folder.c_str(), resolved) != nullptr)
        return std::string(resolved) + p.substr(p.rfind('/'));
      return p;
    }
  }
  return "";
}

int RunChild(const std::vector<std::string>& program, const std::function<void()>& at_end) {
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
    int error = errno;
    std::fprintf(stderr, "cuscope: cannot run %s: %s\n", args[0], std::strerror(error));
    // As shells do: 127 when there is no such program, 126 when it cannot be run.
    _exit(error == ENOENT || error == ENOTDIR ? 127 : 126);
  }
  // Ctrl-C reaches the whole process group: the program handles it; we wait.
  g_child = child;
  return WaitFor(child, at_end);
}

}  // namespace cuscope::cli
