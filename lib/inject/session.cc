#include "lib/inject/session.h"

#include <cupti.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "cuscope/version.h"
#include "lib/collect/collector.h"
#include "lib/collect/scopes.h"
#include "lib/config/output_path.h"
#include "lib/config/rank.h"
#include "lib/inject/collect_options.h"
#include "lib/inject/gpu_metrics.h"
#include "lib/inject/run_end.h"
#include "lib/store/writer.h"

namespace cuscope::inject {
namespace {

int64_t UnixNowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

uint64_t CuptiNowNs() {
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) return 0;
  return t;
}

std::string CommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  return buf;
}

// Everything a running session holds. Allocated once, never destroyed: CUPTI's
// thread and signal handlers may touch it until the process is gone.
struct SessionState {
  absl::Mutex mu;  // serializes start/stop/flush
  bool active ABSL_GUARDED_BY(mu) = false;
  config::Config config;
  collect::CollectOptions options;  // from config
  collect::Collector collector;
  std::string path;
  std::unique_ptr<store::ProfileWriter> writer;
  absl::Mutex writer_mu;  // guards writer use from CUPTI's thread
  bool write_failed = false;
  model::RunInfo run;
  uint64_t records_written = 0;  // the program's own records (Profile::work_record_count)
  // Background thread: periodic flush and signal-triggered stop.
  sem_t wake;
  std::atomic<bool> thread_started{false};
  std::atomic<bool> thread_stop{false};
};

std::atomic<pid_t> g_owner_pid{0};  // the process the session belongs to
std::atomic<bool> g_hooks_installed{false};
std::atomic<int> g_pending_signal{0};
std::atomic<bool> g_signal_done{false};
struct sigaction g_previous_int, g_previous_term;

SessionState& State() {
  static SessionState* state = [] {
    auto* s = new SessionState();
    sem_init(&s->wake, 0, 0);
    return s;
  }();
  return *state;
}

bool InOwnerProcess() { return g_owner_pid.load() == getpid(); }

void Sink(const model::Profile& batch, bool devices_changed) {
  SessionState& s = State();
  absl::MutexLock lock(&s.writer_mu);
  if (s.writer == nullptr || s.write_failed) return;
  absl::Status st = absl::OkStatus();
  if (devices_changed) st = s.writer->WriteDevices(batch.devices);
  if (st.ok()) st = AppendBatch(*s.writer, batch, Warn);
  if (!st.ok()) {
    s.write_failed = true;
    Warn(absl::StrCat("writing the profile failed, later records are lost: ", st.message()));
    return;
  }
  s.records_written += batch.work_record_count();
}

std::atomic<int> g_flush_period_ms{1000};
constexpr int kRegionRetryMs = 5;

void BackgroundLoop() {
  // Process-directed SIGINT/SIGTERM must not land here: OnSignal waits for this
  // thread to write the profile.
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &block, nullptr);
  SessionState& s = State();
  int deferred_ms = 0;  // how long the current period's flush has waited for a region
  while (!s.thread_stop.load()) {
    const int period = g_flush_period_ms.load();
    // A flush inside a measured region instance would show in its span: wait for the
    // instance to end, a few ms at a time, but not longer than one more period (a
    // crash keeps what was flushed).
    const int wait_ms = deferred_ms > 0 ? kRegionRetryMs : period;
    int rc;
    if (period > 0) {
      timespec deadline;
      clock_gettime(CLOCK_REALTIME, &deadline);
      deadline.tv_sec += wait_ms / 1000;
      deadline.tv_nsec += (wait_ms % 1000) * 1000000L;
      if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
      }
      rc = sem_timedwait(&s.wake, &deadline);
    } else {
      rc = sem_wait(&s.wake);
    }
    if (s.thread_stop.load() || !InOwnerProcess()) return;
    int sig = g_pending_signal.load();
    if (sig != 0) {
      Stop(absl::StrCat("signal ", sig)).IgnoreError();
      g_signal_done.store(true);
      return;
    }
    if (rc != 0 && errno == ETIMEDOUT && s.collector.tracer().running()) {
      if (!s.collector.tracer().PeriodicFlush(/*even_if_held=*/deferred_ms >= period)) {
        deferred_ms += kRegionRetryMs;
        continue;
      }
      deferred_ms = 0;
      // The flush delivered the records that may wake the counters' launch callbacks.
      s.collector.counters().Tick();
    }
  }
}

// SIGINT/SIGTERM whose previous disposition would end the process: write the
// profile (on the background thread, bounded wait), then end as the program would
// have. A program's own handler is called instead, untouched: the program decides,
// and the profile is written at exit.
void OnSignal(int sig, siginfo_t* info, void* context) {
  struct sigaction& prev = sig == SIGINT ? g_previous_int : g_previous_term;
  bool prev_is_function = (prev.sa_flags & SA_SIGINFO)
                              ? prev.sa_sigaction != nullptr
                              : (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN);
  if (prev_is_function) {
    if (prev.sa_flags & SA_SIGINFO)
      prev.sa_sigaction(sig, info, context);
    else
      prev.sa_handler(sig);
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  if (InOwnerProcess() && State().thread_started.load() && g_pending_signal.exchange(sig) == 0) {
    sem_post(&State().wake);
    // Wait at most 3 s for the rest of the profile. The run's end is written first
    // (no CUPTI call); the last flush can block when the signal interrupted the
    // program inside a CUDA call (measured on the H200 in a launch loop), and then
    // the records of the last flush period (CUSCOPE_FLUSH_PERIOD_MS) are lost.
    for (int i = 0; i < 300 && !g_signal_done.load(); ++i) {
      timespec ten_ms{0, 10000000L};
      nanosleep(&ten_ms, nullptr);
    }
  }
  sigaction(sig, &prev, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
}

void AtExit() {
  if (!InOwnerProcess()) return;  // a forked child: the parent owns the profile
  Stop("exit").IgnoreError();
}

void AtForkChild() {
  // The child neither flushes nor writes: CUPTI's thread and the profile belong to
  // the parent. A child that execs starts its own session with its own file.
  State().thread_started.store(false);
}

void InstallProcessHooks() {
  if (g_hooks_installed.exchange(true)) return;
  std::atexit(AtExit);
  pthread_atfork(nullptr, nullptr, AtForkChild);
  struct sigaction sa = {};
  sa.sa_sigaction = OnSignal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_previous_int);
  sigaction(SIGTERM, &sa, &g_previous_term);
}

}  // namespace

void Warn(const std::string& message) {
  std::string line = absl::StrCat("cuscope: ", message, "\n");
  ssize_t n = write(STDERR_FILENO, line.data(), line.size());
  (void)n;
}

namespace {

// The collector's parts, in order: the tracer (its failure ends the start), then
// capture control and counters (their failures are notes). Under s.mu.
absl::Status StartCollector(SessionState& s) {
  s.options = CollectOptionsFrom(s.config);
  absl::Status tracing = s.collector.tracer().Start(s.options, Sink);
  if (!tracing.ok()) {
    absl::MutexLock wlock(&s.writer_mu);
    s.run.exit_reason = "not started";
    s.writer->WriteRunInfo(s.run).IgnoreError();
    s.writer->Close().IgnoreError();
    s.writer.reset();
    return absl::UnavailableError(
        absl::StrCat("CUPTI could not start tracing: ", tracing.message()));
  }
  if (s.options.needs_capture_control()) {
    absl::Status capturing = s.collector.regions().Start(s.options);
    if (!capturing.ok()) {
      // Without callbacks the tracer would stay paused: record everything instead.
      s.collector.tracer().ResumeGpuKinds();
      s.run.extra["capture.status"] = std::string(capturing.message());
      Warn(absl::StrCat("capture: ", capturing.message(), "; recording everything instead"));
    }
  }
  if (s.options.counters_enabled()) {
    absl::Status counting = s.collector.counters().Start(s.options);
    if (!counting.ok()) {
      s.run.extra["counters.status"] = std::string(counting.message());
      Warn(absl::StrCat("counters: ", counting.message(), "; tracing goes on without them"));
    }
  }
  StartGpuMetrics(s.collector, s.options, s.run, Warn);
  return absl::OkStatus();
}

// What the tracer and the scopes say at the end, into the run info.
void RecordCollectStats(SessionState& s, const collect::ActivityStats& stats) {
  s.run.dropped_records = stats.dropped_records;
  s.run.buffers_refused = stats.buffers_refused;
  s.run.internal_kernels = stats.internal_kernels;
  // After a failed write the probe's way back is not watched: no takeover to report.
  if (stats.records_taken && !s.write_failed) {
    s.run.extra["activity.status"] = absl::StrFormat(
        "activity records stopped reaching cuscope (the last API call recorded ended %.3f s "
        "into the run): another CUPTI client (torch.profiler, nsys, ...) took over activity "
        "collection; what came after is missing from this profile",
        stats.last_api_end_ns > s.run.start_ns ? (stats.last_api_end_ns - s.run.start_ns) / 1e9
                                               : 0.0);
    Warn(s.run.extra["activity.status"]);
  } else if (stats.buffers_outstanding > 0) {
    s.run.extra["activity.status"] = absl::StrFormat(
        "%d activity buffers were not returned: another CUPTI client (torch.profiler, "
        "nsys, ...) took over activity collection; records after that are missing",
        stats.buffers_outstanding);
    Warn(s.run.extra["activity.status"]);
  }
  collect::scopes::Stats scope_stats = collect::scopes::GetStats();
  s.run.extra["scopes_recorded"] = absl::StrCat(scope_stats.recorded);
  if (scope_stats.dropped_open + scope_stats.dropped_overflow > 0) {
    s.run.extra["scopes_dropped"] =
        absl::StrCat(scope_stats.dropped_open + scope_stats.dropped_overflow);
  }
  if (scope_stats.unbalanced_pops > 0) {
    s.run.extra["scopes_unbalanced_pops"] = absl::StrCat(scope_stats.unbalanced_pops);
  }
}

}  // namespace

absl::Status Start(const config::GetEnv& getenv) {
  SessionState& s = State();
  absl::MutexLock lock(&s.mu);
  if (s.active) return absl::AlreadyExistsError("a cuscope session is already running");
  absl::StatusOr<config::Config> cfg = config::ConfigFromEnv(getenv);
  if (!cfg.ok()) return cfg.status();
  if (!cfg->enabled) return absl::CancelledError("disabled by CUSCOPE_ENABLE=0");
  s.config = *cfg;
  g_flush_period_ms.store(s.config.flush_period_ms);

  pid_t pid = getpid();
  int64_t owner = 0;
  const char* owner_env = getenv("CUSCOPE_OWNER_PID");
  if (owner_env == nullptr || !absl::SimpleAtoi(owner_env, &owner)) owner = 0;
  const config::RankInfo rank = config::RankFromEnv(getenv);
  absl::StatusOr<std::string> path =
      config::ExpandOutputPath(s.config.output, {pid, owner, HostName(), rank.rank, getenv});
  if (!path.ok()) return path.status();
  s.path = *std::move(path);
  if (owner == 0) {
    // Children of this program inherit it and write beside our file.
    setenv("CUSCOPE_OWNER_PID", absl::StrCat(pid).c_str(), 1);
  }

  auto writer = store::ProfileWriter::Create(s.path);
  if (!writer.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write the profile: ", writer.status().message()));
  }
  s.run = model::RunInfo();
  s.run.command_line = CommandLine();
  s.run.pid = pid;
  s.run.start_unix_ns = UnixNowNs();
  s.run.start_ns = CuptiNowNs();
  s.run.cuscope_version = CUSCOPE_VERSION_STRING;
  s.run.hostname = HostName();
  s.run.rank = rank.rank;
  if (rank.known()) {
    s.run.extra["rank_source"] = rank.source;
    if (rank.local_rank >= 0) s.run.extra["local_rank"] = absl::StrCat(rank.local_rank);
    if (rank.world_size >= 0) s.run.extra["world_size"] = absl::StrCat(rank.world_size);
  }
  (*writer)->WriteRunInfo(s.run).IgnoreError();
  {
    absl::MutexLock wlock(&s.writer_mu);
    s.writer = std::move(*writer);
    s.write_failed = false;
    s.records_written = 0;
  }
  g_owner_pid.store(pid);

  absl::Status started = StartCollector(s);
  if (!started.ok()) return started;
  s.active = true;
  collect::scopes::ResetStats();
  collect::scopes::SetRecording(true);
  InstallProcessHooks();
  if (!s.thread_started.exchange(true)) {
    s.thread_stop.store(false);
    std::thread(BackgroundLoop).detach();
  }
  if (s.config.verbose) Warn(absl::StrCat("profiling pid ", pid, " into ", s.path));
  return absl::OkStatus();
}

absl::Status StartFromEnvironment() {
  return Start([](const char* name) -> const char* { return std::getenv(name); });
}

// The end of the profile file: run info, measured kernels' times, findings (read back
// into `ended`), close. True if the write failed (said in its one line).
static bool FinishProfile(SessionState& s, bool on_signal, bool nothing_recorded,
                          std::optional<model::Profile>* ended) {
  absl::MutexLock wlock(&s.writer_mu);
  bool failed = s.write_failed;
  if (s.writer == nullptr) return failed;
  absl::Status st = s.writer->WriteRunInfo(s.run);
  // Measured launches get their times before the profile is read back (only counters
  // leave launches without times: a traced run skips the query). A failure there is
  // said and the profile finished: the reader places them again.
  if (st.ok() && s.options.counters_enabled()) {
    if (absl::Status placed = s.writer->PlaceMeasuredKernels(); !placed.ok()) {
      Warn(absl::StrCat("measured kernels left without times: ", placed.message()));
    }
  }
  if (st.ok() && !failed && !on_signal && !nothing_recorded) {
    *ended = inject::EndProfile(s.path, *s.writer, s.config, Warn);
  }
  if (st.ok()) st = s.writer->Close();
  if (!st.ok() && !failed) {
    Warn(absl::StrCat("finishing the profile failed: ", st.message()));
    failed = true;
  }
  s.writer.reset();
  return failed;
}

absl::Status Stop(const std::string& reason) {
  // A forked child shares the parent's profile file: it never writes or closes it.
  if (g_owner_pid.load() != 0 && !InOwnerProcess()) {
    return absl::FailedPreconditionError("no cuscope session is running in this (forked) process");
  }
  SessionState& s = State();
  absl::MutexLock lock(&s.mu);
  if (!s.active) return absl::FailedPreconditionError("no cuscope session is running");
  s.active = false;
  const bool on_signal = reason.rfind("signal", 0) == 0;
  uint64_t end_ns = CuptiNowNs();
  // Another CUPTI client (Kineto) may have installed its own timestamp source since
  // Start: then CUPTI's clock no longer continues start_ns. Keep the run's own clock.
  if (end_ns < s.run.start_ns) {
    const int64_t elapsed = UnixNowNs() - s.run.start_unix_ns;
    end_ns = s.run.start_ns + static_cast<uint64_t>(elapsed > 0 ? elapsed : 0);
  }
  // Record how the run ended before CUPTI is touched: if the flush below cannot
  // finish (a signal can interrupt the program inside CUDA), the file still says.
  s.run.end_ns = end_ns;
  s.run.end_unix_ns = UnixNowNs();
  s.run.exit_reason = reason;
  {
    absl::MutexLock wlock(&s.writer_mu);
    if (s.writer != nullptr && !s.write_failed) s.writer->WriteRunInfo(s.run).IgnoreError();
  }
  if (s.config.verbose) Warn(absl::StrCat("stopping (", reason, "): flushing CUPTI"));
  if (s.options.needs_capture_control()) {
    s.collector.regions().Stop();
    s.run.extra["capture.windows"] = absl::StrCat(s.collector.regions().WindowsOpened());
  }
  if (s.options.counters_enabled()) {
    s.collector.counters().Stop();
    for (auto& [k, v] : s.collector.counters().Notes()) s.run.extra[k] = v;
  }
  StopGpuMetrics(s.collector, s.options, s.run, on_signal, Warn);
  // User scopes: none recorded from here; the calling thread's open ones end now
  // (other threads' are dropped and counted); the tracer's Stop drains them.
  collect::scopes::SetRecording(false);
  collect::scopes::CloseOpenScopes(end_ns);
  s.collector.tracer().Stop(end_ns);
  if (s.config.verbose) Warn("flushed");
  collect::ActivityStats stats = s.collector.tracer().stats();
  RecordCollectStats(s, stats);
  const bool nothing_recorded = reason == "exit" && s.records_written == 0;
  std::optional<model::Profile> ended;  // read back, with its findings
  const bool failed = FinishProfile(s, on_signal, nothing_recorded, &ended);
  if (stats.dropped_records > 0 || stats.buffers_refused > 0) {
    Warn(absl::StrFormat(
        "%d records were dropped (%d buffer requests refused at CUSCOPE_MAX_BUFFERS=%d); "
        "raise CUSCOPE_MAX_BUFFERS or CUSCOPE_BUFFER_SIZE",
        stats.dropped_records, stats.buffers_refused, s.config.max_buffers));
  }
  // A failed write has said so in its one line, which names the file: nothing more.
  if (!failed) {
    FinishRun({s.path, s.run.pid, s.run.rank, s.config, on_signal, nothing_recorded,
               ended ? &*ended : nullptr});
  }
  return absl::OkStatus();
}

absl::Status Flush() {
  if (g_owner_pid.load() != 0 && !InOwnerProcess()) {
    return absl::FailedPreconditionError("no cuscope session is running in this (forked) process");
  }
  SessionState& s = State();
  absl::MutexLock lock(&s.mu);
  if (!s.active) return absl::FailedPreconditionError("no cuscope session is running");
  // Not forced: a forced flush hands over kernels still queued or running without
  // their times (lib/collect/activity.cc).
  s.collector.tracer().Flush(false);
  return absl::OkStatus();
}

bool Active() {
  SessionState& s = State();
  absl::MutexLock lock(&s.mu);
  return s.active;
}

void OnScopePush(const char* name) { State().collector.regions().OnRangePush(name); }

void OnScopePop() { State().collector.regions().OnRangePop(); }

std::string OutputPath() {
  SessionState& s = State();
  absl::MutexLock lock(&s.mu);
  return s.path;
}

}  // namespace cuscope::inject
