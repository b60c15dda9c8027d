// SIGINT and SIGTERM while a session runs. When the signal's disposition before
// cuscope's (default) would end the process, the handler hands the stop to the
// session's background thread (flush_thread.h), waits at most kMaxWaitMs for it to
// write the profile, then ends the process as the program would have: the previous
// disposition restored and the signal raised again, so the exit status is the
// program's. A program's own handler is called instead, untouched: the program
// decides, and the profile is written at exit. SIG_IGN stays ignored.
//
// The handler reaches its SignalStop through one process-wide atomic pointer, set
// by Install (signal_stop.cc): the only mutable global of the session, since a
// signal handler takes no context. Everything it touches is a lock-free atomic or
// an async-signal-safe call (POSIX's list, man 7 signal-safety).
#ifndef CUSCOPE_LIB_INJECT_SIGNAL_STOP_H_
#define CUSCOPE_LIB_INJECT_SIGNAL_STOP_H_

#include <semaphore.h>
#include <signal.h>
#include <sys/types.h>

#include <atomic>

namespace cuscope::inject {

class SignalStop {
 public:
  // The longest the handler waits for the profile before the process ends. The
  // run's end is written first (its one CUPTI call before that is the clock read of
  // Session::RunEndNs, not a flush), so a stop that does not finish in time (the
  // signal interrupted the program inside a CUDA call, and the last flush blocks)
  // still leaves a profile that says how the run ended; it lacks the records of the
  // last flush period (CUSCOPE_FLUSH_PERIOD_MS).
  static constexpr int kMaxWaitMs = 3000;

  SignalStop() = default;
  SignalStop(const SignalStop&) = delete;
  SignalStop& operator=(const SignalStop&) = delete;

  // Installs the handler for SIGINT and SIGTERM, keeping the dispositions it
  // replaces. Once per process; `this` must live until the process ends.
  void Install();
  // The background thread of process `owner` runs: from now on a signal is handed
  // to it by posting `wake` (which lives as long as this object). Before the thread
  // can see Pending().
  void Arm(pid_t owner, sem_t* wake);
  // On the background thread, after a wake: the signal handed over, or 0.
  int Pending() const { return pending_.load(); }
  // On the background thread as it returns (after the stop for Pending(), if any):
  // a handler waiting now goes on, and until the next Arm none waits.
  void Release();

 private:
  static void OnSignal(int sig, siginfo_t* info, void* context);
  void Handle(int sig, siginfo_t* info, void* context);
  void WaitForRelease() const;

  // Written by Install before the handler is installed; read-only afterwards.
  struct sigaction previous_int_ = {};
  struct sigaction previous_term_ = {};
  // Armed for this process (0: not armed). A forked child, whose pid differs,
  // never waits: the background thread and the profile are the parent's.
  std::atomic<pid_t> owner_{0};
  std::atomic<sem_t*> wake_{nullptr};
  std::atomic<int> pending_{0};  // the first signal handed over since Arm
  std::atomic<bool> released_{false};
};

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_SIGNAL_STOP_H_
