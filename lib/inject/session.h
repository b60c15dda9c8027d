// The process's one profiling session: the collector (lib/collect/collector.h), the
// profile file (profile_sink.h), the background thread (flush_thread.h) and the
// stop on SIGINT/SIGTERM (signal_stop.h). A run is started by InitializeInjection
// (from the environment) or by cuscope_start, and ended by cuscope_stop, at exit, or
// on a terminating signal (stop_reason.h lists them).
//
// Ownership: exactly one Session exists in a process. The entry point
// (injection.cc) creates it on first use (TheSession) and never destroys it:
// CUPTI's threads, the background thread, the atexit hook and the signal handler
// may call into it until the process is gone, after static destructors have run.
// A Session must never be destroyed.
//
// Locks: mu_ (start, stop, flush; the state of the run) is taken before the
// tracer's locks, which are taken before the profile sink's.
#ifndef CUSCOPE_LIB_INJECT_SESSION_H_
#define CUSCOPE_LIB_INJECT_SESSION_H_

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/collector.h"
#include "lib/collect/options.h"
#include "lib/config/config.h"
#include "lib/config/from_env.h"
#include "lib/inject/flush_thread.h"
#include "lib/inject/profile_sink.h"
#include "lib/inject/signal_stop.h"
#include "lib/inject/stop_reason.h"
#include "lib/inject/warn.h"
#include "lib/model/profile.h"

namespace cuscope::inject {

class Session {
 public:
  // The process hooks the entry point gives: installed once, at the first start.
  struct ProcessHooks {
    void (*at_exit)() = nullptr;        // std::atexit: calls OnExit
    void (*at_fork_child)() = nullptr;  // pthread_atfork's child hook: OnForkChild
  };

  explicit Session(ProcessHooks hooks);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Starts a run with the settings `getenv` gives (CUSCOPE_*). Errors are returned
  // (the caller prints one line); the program runs on untraced.
  absl::Status Start(const config::GetEnv& getenv);
  // Ends the run: flush, write, report (Stop's steps in session.cc). Refused in a
  // forked child: the profile is the parent's.
  absl::Status Stop(const StopReason& reason);
  absl::Status Flush();
  bool Active();
  std::string OutputPath();
  // A user scope opened / closed on the calling thread (cuscope_range_push/pop): a
  // region boundary for capture control and region counters, like an NVTX range.
  void OnScopePush(const char* name);
  void OnScopePop();
  // atexit: ends the run with "exit" in the process that owns it; nothing in a
  // forked child.
  void OnExit();
  // pthread_atfork, in the child: the background thread is the parent's.
  void OnForkChild();

 private:
  // The run's state, changed under mu_ only.
  enum class Phase {
    kIdle,
    kRunning,
    kEndingThread,  // Stop's steps are done; its background thread is being joined
  };

  bool InOwnerProcess() const { return owner_pid_.load() == getpid(); }
  absl::Status OpenProfile(const config::GetEnv& getenv) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status StartCollector() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StartBackground() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void InstallProcessHooksOnce() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool PeriodicFlush(bool even_if_held);

  // Stop's steps, in order (session.cc says why the order).
  void StopSteps(const StopReason& reason) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  uint64_t RunEndNs() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void WriteRunEnd(const StopReason& reason, uint64_t end_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void StopCaptureAndCounters(const StopReason& reason) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  collect::ActivityStats FlushTracer(uint64_t end_ns) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecordCollectStats(const collect::ActivityStats& stats) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  struct Ended {
    bool failed = false;            // a write failed (said in its one line)
    bool nothing_recorded = false;  // at exit, without one record: no file
  };
  Ended FinishProfile(const StopReason& reason) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Report(const StopReason& reason, const collect::ActivityStats& stats, const Ended& ended)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ProcessHooks hooks_;
  // The process the run belongs to (0 before the first start).
  std::atomic<pid_t> owner_pid_{0};

  absl::Mutex mu_;
  Phase phase_ ABSL_GUARDED_BY(mu_) = Phase::kIdle;
  bool hooks_installed_ ABSL_GUARDED_BY(mu_) = false;
  bool tick_hook_set_ ABSL_GUARDED_BY(mu_) = false;  // the counters' SetTickHook
  config::Config config_ ABSL_GUARDED_BY(mu_);
  collect::CollectOptions options_ ABSL_GUARDED_BY(mu_);  // from config_
  std::string path_ ABSL_GUARDED_BY(mu_);
  model::RunInfo run_ ABSL_GUARDED_BY(mu_);
  // The `cuscope` command that ends the run in a process of its own (end_process.h);
  // "": the run ends in this process.
  std::string end_command_ ABSL_GUARDED_BY(mu_);

  // Each with its own synchronization; never destroyed (see above).
  collect::Collector collector_;
  ProfileSink sink_;
  SignalStop signals_;
  FlushThread flush_thread_{signals_};
};

// The process's one session, kept by the entry point (injection.cc): created on
// first use, never destroyed.
Session& TheSession();

}  // namespace cuscope::inject

#endif  // CUSCOPE_LIB_INJECT_SESSION_H_
