// What a session does when it ends, once the profile's records and run info are
// written and the file closed: the run's end proper (the profile read back, the
// advisor's findings computed and stored in it (CUSCOPE_ADVISE), the text report on
// stderr (CUSCOPE_REPORT; in a job of several ranks, by the rank that prints it)),
// in a process of its own when a `cuscope` command is at hand (end_process.h), else
// in this one; then the line naming the profile. Or, when the process recorded
// nothing, no file and one line. Under `cuscope run`, each process also tells the
// command (CUSCOPE_RUN_LOG) what it left, so that the command can say once that no
// process did CUDA work.
#ifndef CUSCOPE_LIB_INJECT_RUN_END_H_
#define CUSCOPE_LIB_INJECT_RUN_END_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "lib/config/config.h"
#include "lib/model/profile.h"

namespace cuscope::inject {

// Reads the profile at `path` (complete and closed) back and, with config.advise,
// computes its findings and stores them in it; without, the profile's findings are an
// empty list. nullopt after a `warn` line when the profile cannot be read. A failure
// to store the findings is a `warn` line too: the profile stays valid.
std::optional<model::Profile> EndProfile(const std::string& path, const config::Config& config,
                                         const std::function<void(const std::string&)>& warn);

struct RunEnd {
  std::string path;  // the profile, complete and closed
  int64_t pid = 0;
  int rank = -1;  // -1: not one of several ranks
  config::Config config;
  bool on_signal = false;         // the user wants the program gone: no findings, no report
  bool nothing_recorded = false;  // at exit, without one record: the file goes
  std::string end_command;        // FindEndCommand's: "" ends the run in this process
};

// The run's end (findings, the report when this process prints it), "profile written
// to PATH", and the command's line; or, with nothing recorded, the file removed and
// one line.
void FinishRun(const RunEnd& end);

// One line for `cuscope run` ("written PATH", "empty PID", "failed PID"), appended to
// the file that CUSCOPE_RUN_LOG names; nothing without it.
void TellCommand(const std::string& line);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_RUN_END_H_
