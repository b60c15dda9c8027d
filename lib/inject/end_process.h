// The end of a run (the profile read back, its findings stored, the report printed:
// run_end.h) in a process of its own, `cuscope _end-run` (lib/cli/end_run.cc): reading
// back a profile of millions of records takes hundreds of MB (docs/performance.md, "A
// traced run's memory"), which then stay out of the profiled program. The program
// waits for it; it writes on the program's stderr.
#ifndef CUSCOPE_LIB_INJECT_END_PROCESS_H_
#define CUSCOPE_LIB_INJECT_END_PROCESS_H_

#include <string>

#include "lib/config/config.h"
#include "lib/config/from_env.h"

namespace cuscope::inject {

// The `cuscope` command that ends runs, as an absolute path: CUSCOPE_COMMAND (set by
// `cuscope run`) when it names an executable file; else, when this code is in
// libcuscope.so, the `cuscope` installed beside it (../bin/cuscope, or in its own
// folder); else "" (the run ends in this process). Read when the run starts: the
// library's path may be relative to a working directory the program leaves.
std::string FindEndCommand(const config::GetEnv& getenv);

enum class EndOutcome {
  kDone,    // the command ran: it did the end, or said why it could not
  kNotRun,  // it did not start, or is not this library's version: nothing was done
};

// Runs `command _end-run PATH [--report]` and waits for it. Its environment is this
// process's without CUSCOPE_* variables and the CUDA and NVTX injection paths, with
// every setting of `config` (so that it ends the run as this process would).
// A command that crashed or failed is said in one line (kDone: the end is not tried
// again, in this process, after that).
EndOutcome RunEndProcess(const std::string& command, const std::string& path,
                         const config::Config& config, bool print_report);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_END_PROCESS_H_
