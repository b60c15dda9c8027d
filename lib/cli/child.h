// The program that `cuscope run` profiles: where libcuscope.so is, and the child
// process whose end the command passes on.
#ifndef CUSCOPE_LIB_CLI_CHILD_H_
#define CUSCOPE_LIB_CLI_CHILD_H_

#include <functional>
#include <string>
#include <vector>

namespace cuscope::cli {

// This executable's absolute path ("" when /proc cannot tell), and its folder.
std::string SelfPath();
std::string SelfDir();

// libcuscope.so: CUSCOPE_LIBRARY, else beside this executable (../lib, ../lib64,
// here, ../lib/x86_64-linux-gnu) as an absolute path; "" if not found.
std::string FindLibrary();
// The folder of the PyTorch hook (sitecustomize.py, torch_hook.py): CUSCOPE_PYTHON_HOOK,
// else ../share/cuscope/python beside the command; "" when it is not there.
std::string FindPythonHook();

// Runs `program` (PATH searched) in a child process with CUSCOPE_OWNER_PID set to
// its pid, and waits. SIGTERM and SIGHUP are forwarded to it; SIGINT and SIGQUIT
// reach it with the process group and are ignored here. Returns its exit code (127
// if there is no such program, 126 if it cannot be run, as shells do); if a signal
// ended it, ends this process by that signal. `at_end`, when set, runs once the
// program has ended, before either.
int RunChild(const std::vector<std::string>& program, const std::function<void()>& at_end = {});

}  // namespace cuscope::cli

#endif  // CUSCOPE_LIB_CLI_CHILD_H_
