// How a session's run ended: the cause, and its text in the profile
// (RunInfo::exit_reason), which reports and readers of older profiles show as is.
#ifndef CUSCOPE_LIB_INJECT_STOP_REASON_H_
#define CUSCOPE_LIB_INJECT_STOP_REASON_H_

#include <string>

namespace cuscope::inject {

// Every way a run ends. A forked child never ends its parent's run (the parent owns
// the profile), so it has no reason of its own.
enum class StopCause {
  kExit,        // the process exits (atexit): "exit"
  kStopCall,    // cuscope_stop(): "stop"
  kSignal,      // SIGINT/SIGTERM that would end the process: "signal N"
  kNotStarted,  // the tracer could not start; the file is closed at once: "not started"
};

struct StopReason {
  StopCause cause = StopCause::kExit;
  int signal = 0;  // with kSignal: the signal's number

  static StopReason Exit() { return {StopCause::kExit, 0}; }
  static StopReason StopCall() { return {StopCause::kStopCall, 0}; }
  static StopReason Signal(int sig) { return {StopCause::kSignal, sig}; }
  static StopReason NotStarted() { return {StopCause::kNotStarted, 0}; }

  bool on_signal() const { return cause == StopCause::kSignal; }
};

// The text stored as RunInfo::exit_reason: "exit", "stop", "signal 2", "not started".
std::string ExitReasonText(const StopReason& reason);

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_STOP_REASON_H_
