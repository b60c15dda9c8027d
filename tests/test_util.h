// Helpers shared by the test executables: files and child processes.
#ifndef CUSCOPE_TESTS_TEST_UTIL_H_
#define CUSCOPE_TESTS_TEST_UTIL_H_

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace cuscope::testing_util {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `name` in gtest's temporary directory.
inline std::string TempPath(const std::string& name) {
  std::string dir = ::testing::TempDir();
  return dir + (dir.empty() || dir.back() == '/' ? "" : "/") + name;
}

struct ProgramResult {
  int exit_code = -1;  // -1 if killed by a signal
  int signal = 0;
  std::string out, err;
  // As a shell reports it: the exit code, or 128 + the signal.
  int code() const { return signal != 0 ? 128 + signal : exit_code; }
};

// A program started in the background: argv (PATH searched) with extra environment,
// stdout and stderr to files.
struct SpawnedProgram {
  pid_t pid = -1;
  std::string out_path, err_path;
};

inline SpawnedProgram SpawnProgram(const std::vector<std::string>& argv,
                                   const std::map<std::string, std::string>& env = {}) {
  static int counter = 0;
  const std::string stem =
      TempPath("run_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  SpawnedProgram c;
  c.out_path = stem + ".out";
  c.err_path = stem + ".err";
  c.pid = fork();
  if (c.pid == 0) {
    dup2(open(c.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 1);
    dup2(open(c.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), 2);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return c;
}

// What a spawned program left: its wait status and its output.
inline ProgramResult Collect(const SpawnedProgram& c, int status) {
  ProgramResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.out = ReadFile(c.out_path);
  r.err = ReadFile(c.err_path);
  return r;
}

// Runs argv (PATH searched) with extra environment, stdout and stderr captured;
// `kill_after_ms` > 0 sends SIGTERM then.
inline ProgramResult RunProgram(const std::vector<std::string>& argv,
                                const std::map<std::string, std::string>& env = {},
                                int kill_after_ms = 0) {
  const SpawnedProgram c = SpawnProgram(argv, env);
  if (kill_after_ms > 0) {
    usleep(kill_after_ms * 1000);
    kill(c.pid, SIGTERM);
  }
  int status = 0;
  waitpid(c.pid, &status, 0);
  return Collect(c, status);
}

}  // namespace cuscope::testing_util

#endif  // CUSCOPE_TESTS_TEST_UTIL_H_
