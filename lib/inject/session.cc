#include "lib/inject/session.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cuscope/version.h"
#include "lib/collect/cupti_entry.h"
#include "lib/collect/driver.h"
#include "lib/collect/scopes.h"
#include "lib/config/output_path.h"
#include "lib/config/rank.h"
#include "lib/config/setting.h"
#include "lib/inject/collect_options.h"
#include "lib/inject/end_process.h"
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

}  // namespace

Session::Session(ProcessHooks hooks) : hooks_(hooks) {}

absl::Status Session::Start(const config::GetEnv& getenv) {
  absl::MutexLock lock(&mu_);
  // The last run's background thread is still being joined (Stop): wait for it.
  mu_.Await(absl::Condition(
      +[](Phase* phase) { return *phase != Phase::kEndingThread; }, &phase_));
  if (phase_ == Phase::kRunning) {
    return absl::AlreadyExistsError("a cuscope session is already running");
  }
  absl::StatusOr<config::Config> cfg = config::ConfigFromEnv(getenv);
  if (!cfg.ok()) return cfg.status();
  if (!cfg->enabled) return absl::CancelledError("disabled by CUSCOPE_ENABLE=0");
  config_ = *std::move(cfg);
  end_command_ = FindEndCommand(getenv);
  if (absl::Status opened = OpenProfile(getenv); !opened.ok()) return opened;
  if (absl::Status started = StartCollector(); !started.ok()) return started;
  phase_ = Phase::kRunning;
  collect::scopes::ResetStats();
  collect::scopes::SetRecording(true);
  InstallProcessHooksOnce();
  StartBackground();
  if (config_.verbose) Warn(absl::StrCat("profiling pid ", run_.pid, " into ", path_));
  return absl::OkStatus();
}

// The file (named from the settings), the run info as it starts, the owner process.
absl::Status Session::OpenProfile(const config::GetEnv& getenv) {
  pid_t pid = getpid();
  int64_t owner = 0;
  const char* owner_env = getenv("CUSCOPE_OWNER_PID");
  if (owner_env == nullptr || !absl::SimpleAtoi(owner_env, &owner)) owner = 0;
  const config::RankInfo rank = config::RankFromEnv(getenv);
  absl::StatusOr<std::string> path =
      config::ExpandOutputPath(config_.output, {pid, owner, HostName(), rank.rank, getenv});
  if (!path.ok()) return path.status();
  path_ = *std::move(path);
  if (owner == 0) {
    // Children of this program inherit it and write beside our file.
    setenv("CUSCOPE_OWNER_PID", absl::StrCat(pid).c_str(), 1);
  }
  auto writer = store::ProfileWriter::Create(path_);
  if (!writer.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write the profile: ", writer.status().message()));
  }
  run_ = model::RunInfo();
  run_.command_line = CommandLine();
  run_.pid = pid;
  run_.start_unix_ns = UnixNowNs();
  run_.start_ns = collect::CuptiNowNs();
  run_.cuscope_version = CUSCOPE_VERSION_STRING;
  run_.hostname = HostName();
  run_.rank = rank.rank;
  run_.notes.settings = config::SettingValues(config_);
  if (rank.known()) {
    run_.notes.rank_source = rank.source;
    if (rank.local_rank >= 0) run_.notes.local_rank = rank.local_rank;
    if (rank.world_size >= 0) run_.notes.world_size = rank.world_size;
  }
  (*writer)->WriteRunInfo(run_).IgnoreError();
  sink_.Open(*std::move(writer), path_);
  owner_pid_.store(pid);
  return absl::OkStatus();
}

// The collector's parts, in order: the tracer (its failure ends the start), then
// capture control and counters (their failures are notes).
absl::Status Session::StartCollector() {
  options_ = CollectOptionsFrom(config_);
  absl::Status tracing = collector_.tracer().Start(
      options_, [this](const model::Profile& batch, bool devices_changed) {
        sink_.Append(batch, devices_changed);
      });
  if (!tracing.ok()) {
    run_.exit_reason = ExitReasonText(StopReason::NotStarted());
    sink_.Abandon(run_);
    // Without a driver CUPTI only says CUPTI_ERROR_UNKNOWN: say what is missing.
    const std::string why = collect::DriverInstalled()
                                ? std::string(tracing.message())
                                : absl::StrCat("no CUDA driver (libcuda.so.1) on this machine (",
                                               tracing.message(), ")");
    return absl::UnavailableError(absl::StrCat("CUPTI could not start tracing: ", why));
  }
  if (options_.needs_capture_control()) {
    absl::Status capturing = collector_.regions().Start(options_);
    if (!capturing.ok()) {
      // Without callbacks the tracer would stay paused: record everything instead.
      collector_.tracer().ResumeGpuKinds();
      run_.notes.capture_status = std::string(capturing.message());
      Warn(absl::StrCat("capture: ", capturing.message(), "; recording everything instead"));
    }
  }
  if (options_.counters_enabled()) {
    // The idle switch off is made at once rather than at the next flush period (set
    // once: no launch runs before the first Start).
    if (!tick_hook_set_) {
      collector_.counters().SetTickHook([this] { flush_thread_.Nudge(); });
      tick_hook_set_ = true;
    }
    absl::Status counting = collector_.counters().Start(options_);
    if (!counting.ok()) {
      run_.notes.counters_status = std::string(counting.message());
      Warn(absl::StrCat("counters: ", counting.message(), "; tracing goes on without them"));
    }
  }
  StartGpuMetrics(collector_, options_, run_, Warn);
  StartSource(collector_, options_, run_, Warn);
  return absl::OkStatus();
}

// The atexit and fork hooks and the signal handler, at the process's first start.
void Session::InstallProcessHooksOnce() {
  if (hooks_installed_) return;
  hooks_installed_ = true;
  if (hooks_.at_exit != nullptr) std::atexit(hooks_.at_exit);
  if (hooks_.at_fork_child != nullptr) pthread_atfork(nullptr, nullptr, hooks_.at_fork_child);
  signals_.Install();
}

void Session::StartBackground() {
  FlushThread::Work work;
  work.flush = [this](bool even_if_held) { return PeriodicFlush(even_if_held); };
  work.stop_on_signal = [this](int sig) { Stop(StopReason::Signal(sig)).IgnoreError(); };
  work.tick = [this] { collector_.counters().Tick(); };
  if (!flush_thread_.Start(config_.flush_period_ms, std::move(work))) {
    Warn(
        "no background thread: records reach the profile only at the end, and SIGINT/SIGTERM "
        "end the program without writing it");
  }
}

// On the background thread, each flush period (no lock of the session's: the
// tracer serializes its flushes).
bool Session::PeriodicFlush(bool even_if_held) {
  collect::ActivityTracer& tracer = collector_.tracer();
  if (!tracer.running()) return true;
  // PC samples drained first, so that this flush's batch takes them.
  collector_.pc_sampler().Poll();
  if (!tracer.PeriodicFlush(even_if_held)) return false;
  // The flush delivered the records that may wake the counters' launch callbacks.
  collector_.counters().Tick();
  return true;
}

absl::Status Session::Stop(const StopReason& reason) {
  // A forked child shares the parent's profile file: it never writes or closes it.
  if (owner_pid_.load() != 0 && !InOwnerProcess()) {
    return absl::FailedPreconditionError("no cuscope session is running in this (forked) process");
  }
  mu_.Lock();
  if (phase_ != Phase::kRunning) {
    mu_.Unlock();
    return absl::FailedPreconditionError("no cuscope session is running");
  }
  StopSteps(reason);
  // The background thread is joined without mu_: on a signal it may be waiting for
  // mu_ to stop the run itself, and then finds no run. Start waits for this phase.
  phase_ = Phase::kEndingThread;
  mu_.Unlock();
  flush_thread_.End();
  mu_.Lock();
  phase_ = Phase::kIdle;
  mu_.Unlock();
  return absl::OkStatus();
}

// The order of a stop, one step per call (under mu_, once per run):
//  1. WriteRunEnd: when and how the run ended is in the file before any CUPTI call
//     but the clock read that gives the end (RunEndNs, cuptiGetTimestamp). On a
//     signal the tracer's flush can block (the program was interrupted inside a
//     CUDA call) past the handler's wait: the file still says how it ended.
//  2. StopCaptureAndCounters: capture windows, counters and GPU metrics end before
//     the tracer's last flush, so that what they leave behind (records, samples,
//     notes) goes out with it and into the final run info.
//  3. FlushTracer: user scopes closed, then the tracer's last forced flush drains
//     every record into the file; its statistics go into the run info.
//  4. FinishProfile: the final run info (with what 2 and 3 added), measured kernels'
//     times, the file closed.
//  5. Report: only once the file is complete: dropped records; the run's end (the
//     profile read back, its findings stored, the report), in a process of its own
//     when there is a `cuscope` command (end_process.h); the line naming the profile
//     (or, with nothing recorded, the file removed).
void Session::StopSteps(const StopReason& reason) {
  const uint64_t end_ns = RunEndNs();
  WriteRunEnd(reason, end_ns);
  StopCaptureAndCounters(reason);
  const collect::ActivityStats stats = FlushTracer(end_ns);
  const Ended ended = FinishProfile(reason);
  Report(reason, stats, ended);
}

uint64_t Session::RunEndNs() {
  uint64_t end_ns = collect::CuptiNowNs();
  // Another CUPTI client (Kineto) may have installed its own timestamp source since
  // Start: then CUPTI's clock no longer continues start_ns. Keep the run's own clock.
  if (end_ns < run_.start_ns) {
    const int64_t elapsed = UnixNowNs() - run_.start_unix_ns;
    end_ns = run_.start_ns + static_cast<uint64_t>(elapsed > 0 ? elapsed : 0);
  }
  return end_ns;
}

void Session::WriteRunEnd(const StopReason& reason, uint64_t end_ns) {
  run_.end_ns = end_ns;
  run_.end_unix_ns = UnixNowNs();
  run_.exit_reason = ExitReasonText(reason);
  sink_.WriteRunInfo(run_);
  if (config_.verbose) Warn(absl::StrCat("stopping (", run_.exit_reason, "): flushing CUPTI"));
}

void Session::StopCaptureAndCounters(const StopReason& reason) {
  if (options_.needs_capture_control()) {
    collector_.regions().Stop();
    run_.notes.capture_windows = static_cast<int64_t>(collector_.regions().WindowsOpened());
  }
  if (options_.counters_enabled()) {
    collector_.counters().Stop();
    model::MergeNotes(collector_.counters().Notes(), &run_.notes);
  }
  StopGpuMetrics(collector_, options_, run_, reason.on_signal(), Warn);
  StopSource(collector_, options_, run_, reason.on_signal(), Warn);
}

collect::ActivityStats Session::FlushTracer(uint64_t end_ns) {
  // User scopes: none recorded from here; the calling thread's open ones end now
  // (other threads' are dropped and counted); the tracer's Stop drains them.
  collect::scopes::SetRecording(false);
  collect::scopes::CloseOpenScopes(end_ns);
  collector_.tracer().Stop(end_ns);
  if (config_.verbose) Warn("flushed");
  collect::ActivityStats stats = collector_.tracer().stats();
  RecordCollectStats(stats);
  return stats;
}

// What the tracer and the scopes say at the end, into the run info.
void Session::RecordCollectStats(const collect::ActivityStats& stats) {
  run_.dropped_records = stats.dropped_records;
  run_.buffers_refused = stats.buffers_refused;
  run_.internal_kernels = stats.internal_kernels;
  // After a failed write the probe's way back is not watched: no takeover to report.
  if (stats.records_taken && !sink_.write_failed()) {
    run_.notes.activity_status = absl::StrFormat(
        "activity records stopped reaching cuscope (the last API call recorded ended %.3f s "
        "into the run): another CUPTI client (torch.profiler, nsys, ...) took over activity "
        "collection; what came after is missing from this profile",
        stats.last_api_end_ns > run_.start_ns ? (stats.last_api_end_ns - run_.start_ns) / 1e9
                                              : 0.0);
    Warn(run_.notes.activity_status);
  } else if (stats.buffers_outstanding > 0) {
    run_.notes.activity_status = absl::StrFormat(
        "%d activity buffers were not returned: another CUPTI client (torch.profiler, "
        "nsys, ...) took over activity collection; records after that are missing",
        stats.buffers_outstanding);
    Warn(run_.notes.activity_status);
  }
  collect::scopes::Stats scope_stats = collect::scopes::GetStats();
  run_.notes.scopes_recorded = static_cast<int64_t>(scope_stats.recorded);
  if (scope_stats.dropped_open + scope_stats.dropped_overflow > 0) {
    run_.notes.scopes_dropped =
        static_cast<int64_t>(scope_stats.dropped_open + scope_stats.dropped_overflow);
  }
  if (scope_stats.unbalanced_pops > 0) {
    run_.notes.scopes_unbalanced_pops = static_cast<int64_t>(scope_stats.unbalanced_pops);
  }
}

Session::Ended Session::FinishProfile(const StopReason& reason) {
  Ended ended;
  ended.nothing_recorded = reason.cause == StopCause::kExit && sink_.records_written() == 0;
  ProfileSink::Ending ending;
  ending.place_measured_kernels = options_.counters_enabled();
  ended.failed = sink_.Finish(run_, ending);
  return ended;
}

void Session::Report(const StopReason& reason, const collect::ActivityStats& stats,
                     const Ended& ended) {
  if (stats.dropped_records > 0 || stats.buffers_refused > 0) {
    Warn(absl::StrFormat(
        "%d records were dropped (%d buffer requests refused at CUSCOPE_MAX_BUFFERS=%d); "
        "raise CUSCOPE_MAX_BUFFERS or CUSCOPE_BUFFER_SIZE",
        stats.dropped_records, stats.buffers_refused, config_.max_buffers));
  }
  // A failed write has said so in its one line, which names the file: nothing more.
  if (!ended.failed) {
    FinishRun({path_, run_.pid, run_.rank, config_, reason.on_signal(), ended.nothing_recorded,
               end_command_});
  }
}

absl::Status Session::Flush() {
  if (owner_pid_.load() != 0 && !InOwnerProcess()) {
    return absl::FailedPreconditionError("no cuscope session is running in this (forked) process");
  }
  absl::MutexLock lock(&mu_);
  if (phase_ != Phase::kRunning)
    return absl::FailedPreconditionError("no cuscope session is running");
  // Not forced: a forced flush hands over kernels still queued or running without
  // their times (lib/collect/activity.cc).
  collector_.tracer().Flush(false);
  return absl::OkStatus();
}

bool Session::Active() {
  absl::MutexLock lock(&mu_);
  return phase_ == Phase::kRunning;
}

std::string Session::OutputPath() {
  absl::MutexLock lock(&mu_);
  return path_;
}

void Session::OnScopePush(const char* name) { collector_.regions().OnRangePush(name); }

void Session::OnScopePop() { collector_.regions().OnRangePop(); }

void Session::OnExit() {
  if (!InOwnerProcess()) return;  // a forked child: the parent owns the profile
  Stop(StopReason::Exit()).IgnoreError();
}

void Session::OnForkChild() { flush_thread_.ForgetInChild(); }

}  // namespace cuscope::inject
