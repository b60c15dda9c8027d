// Where a process writes its profile: CUSCOPE_OUTPUT with its placeholders expanded,
// as nsys names its reports: %p the pid, %h the host name, %r the rank (rank.h),
// %q{VAR} the environment variable VAR, %% a '%'.
#ifndef CUSCOPE_LIB_CONFIG_OUTPUT_PATH_H_
#define CUSCOPE_LIB_CONFIG_OUTPUT_PATH_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/config/from_env.h"

namespace cuscope::config {

// What the placeholders of one process become.
struct OutputContext {
  int64_t pid = 0;
  // CUSCOPE_OWNER_PID: the profiled program's pid; 0 when this process is it.
  int64_t owner_pid = 0;
  std::string host;
  int rank = -1;  // -1: %r becomes "none"
  GetEnv getenv;  // for %q{VAR}; null: every variable is unset
};

// `output` (kDefaultOutput when empty) with its placeholders replaced. A process other
// than the owner writes beside the owner's file, "<stem>.<pid>.sqlite", unless the
// name already tells processes apart (%p, %q{VAR}, or %r with a rank). An unknown
// placeholder or an unset %q{VAR} gives InvalidArgument naming it.
absl::StatusOr<std::string> ExpandOutputPath(const std::string& output, const OutputContext& ctx);

// Only the placeholders' spelling (the values come later, in each process): OK, or
// InvalidArgument naming the first bad one and what is accepted.
absl::Status CheckOutputPlaceholders(absl::string_view output);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_OUTPUT_PATH_H_
