// The session's background thread, one per run: started by Session::Start, ended
// and joined by Session::Stop. Each flush period (CUSCOPE_FLUSH_PERIOD_MS) it asks
// the session to flush CUPTI's buffers into the profile; on SIGINT/SIGTERM
// (signal_stop.h) it stops the session itself, then lets the signal handler go on.
//
// Lifetime: the thread runs from Start to End. End joins it, waiting at most
// kEndWaitMs for it to return (an injected library must not hang its host's exit):
// a thread still inside CUPTI then is left to return by itself (detached), and later
// runs go without a background thread. A stop on
// a signal runs on the thread itself: End only asks it to return, and the process
// ends by the signal right after. In a forked child the thread does not exist
// (ForgetInChild).
#ifndef CUSCOPE_LIB_INJECT_FLUSH_THREAD_H_
#define CUSCOPE_LIB_INJECT_FLUSH_THREAD_H_

#include <semaphore.h>

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "lib/inject/signal_stop.h"

namespace cuscope::inject {

class FlushThread {
 public:
  static constexpr int kEndWaitMs = 5000;

  struct Work {
    // One periodic flush. False when it was held off (a measured region instance
    // is open) and should be tried again in a few ms; `even_if_held` once a whole
    // period has passed that way.
    std::function<bool(bool even_if_held)> flush;
    // Ends the session on signal `sig`, on this thread.
    std::function<void(int sig)> stop_on_signal;
    // What a Nudge asks for, on this thread (the counters' Tick); may be empty.
    std::function<void()> tick;
  };

  // `signals` is armed by Start and released by the thread as it returns.
  explicit FlushThread(SignalStop& signals);
  FlushThread(const FlushThread&) = delete;
  FlushThread& operator=(const FlushThread&) = delete;

  // Starts the thread (after joining one that ended by itself on a signal).
  // `period_ms` 0: no periodic flush. False (the session runs on without periodic
  // flushes or a stop on signals) when no thread can be made. Not concurrently with
  // End: the session serializes them.
  bool Start(int period_ms, Work work);
  // Ends the thread of the last Start; nothing without one.
  void End();
  // Asks the thread for Work::tick now, from any thread (a launch callback): lock-free,
  // one post until the thread has taken it. Harmless without a thread.
  void Nudge();
  // In a forked child (pthread_atfork): the thread is the parent's and absent here.
  void ForgetInChild();

 private:
  void Loop();

  SignalStop& signals_;
  sem_t wake_;                       // posted by End, by the signal handler and by Nudge
  std::atomic<bool> nudged_{false};  // a Nudge the thread has not taken yet
  sem_t ended_;                      // posted by the thread as it returns
  std::atomic<bool> stop_{false};
  // Written by Start before the thread is made, then read by the thread only.
  int period_ms_ = 0;
  Work work_;
  // Start, End and ForgetInChild only.
  std::unique_ptr<std::thread> thread_;
  bool abandoned_ = false;  // End gave up waiting for a thread
};

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_FLUSH_THREAD_H_
