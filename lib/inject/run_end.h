// What a session says when it ends: the report on stderr (in a job of several ranks,
// by the rank that prints it) and the line naming the profile; or, when the process
// recorded nothing, no file and one line. Under `cuscope run`, each process also
// tells the command (CUSCOPE_RUN_LOG) what it left, so that the command can say once
// that no process did CUDA work.
#ifndef CUSCOPE_LIB_INJECT_RUN_END_H_
#define CUSCOPE_LIB_INJECT_RUN_END_H_

#include <cstdint>
#include <string>

#include "lib/config/config.h"

namespace cuscope::inject {

struct RunEnd {
  std::string path;  // the profile, complete and closed
  int64_t pid = 0;
  int rank = -1;  // -1: not one of several ranks
  config::Config config;
  bool on_signal = false;         // the user wants the program gone: no report
  bool nothing_recorded = false;  // at exit, without one record: the file goes
};

void FinishRun(const RunEnd& end);

// One line for `cuscope run` ("written PATH", "empty PID", "failed PID"), appended to
// the file that CUSCOPE_RUN_LOG names; nothing without it.
void TellCommand(const std::string& line);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_RUN_END_H_
