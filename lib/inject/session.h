// The process's one profiling session: owns the collector (lib/collect/collector.h)
// and the profile writer.
// Started by InitializeInjection (from the environment) or by the public API; ended
// by the API, at exit, or on a terminating signal.
#ifndef CUSCOPE_LIB_INJECT_SESSION_H_
#define CUSCOPE_LIB_INJECT_SESSION_H_

#include <string>

#include "absl/status/status.h"
#include "lib/config/config.h"
#include "lib/config/from_env.h"

namespace cuscope::inject {

// Reads CUSCOPE_* and starts the session. Errors are returned (and the caller
// prints one line); the program runs on untraced.
absl::Status StartFromEnvironment();
// Starts with `overrides` (NAME -> VALUE) applied over the environment.
absl::Status Start(const config::GetEnv& getenv);
// Ends the session: flush, write, report. `reason` goes into the run info.
absl::Status Stop(const std::string& reason);
absl::Status Flush();
bool Active();
std::string OutputPath();
// A user scope opened / closed on the calling thread (cuscope_range_push/pop): a
// region boundary for capture control and region counters, like an NVTX range.
void OnScopePush(const char* name);
void OnScopePop();

// Prints "cuscope: <message>" as one line on stderr.
void Warn(const std::string& message);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_SESSION_H_
