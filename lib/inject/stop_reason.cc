#include "lib/inject/stop_reason.h"

#include "absl/strings/str_cat.h"

namespace cuscope::inject {

std::string ExitReasonText(const StopReason& reason) {
  switch (reason.cause) {
    case StopCause::kExit:
      return "exit";
    case StopCause::kStopCall:
      return "stop";
    case StopCause::kSignal:
      return absl::StrCat("signal ", reason.signal);
    case StopCause::kNotStarted:
      return "not started";
  }
  return "exit";
}

}  // namespace cuscope::inject
