// GPU metrics sampling for a session (the gpu_metrics setting), as nsys's GPU
// metrics are: on each device with a CUDA context, CUPTI PM sampling of a few
// one-pass metrics every interval of GPU time (pm_device.h), with kernel records kept.
// A thread of its own sets devices up and decodes their hardware buffers every
// kDecodePeriodMs; the tracer's batches take the samples (DrainSource) as
// model::GpuSample records, the device's configuration first.
//
// Devices are found by CUPTI's context-created callback and, when the thread starts,
// by the primary contexts already active. Problems (not permitted, unsupported metrics, a
// chip without time-interval sampling) are notes: the trace goes on without samples.
#ifndef CUSCOPE_LIB_COLLECT_GPU_SAMPLER_H_
#define CUSCOPE_LIB_COLLECT_GPU_SAMPLER_H_

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/callbacks.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/options.h"
#include "lib/collect/pm_device.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

class GpuSampler final : public DrainSource {
 public:
  explicit GpuSampler(CallbackSubscription* callbacks) : callbacks_(callbacks) {}
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // Subscribes to context creation and starts the thread. A later session's Start
  // resumes the devices an earlier one set up (sampling is stopped, never disabled).
  absl::Status Start(const SamplingOptions& options);
  // Context creation (from the collector's CUPTI callback): its device is set up.
  void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  // Stops sampling on every device, decodes what is left, ends the thread. It waits
  // for the thread up to kStopWaitMs, then leaves it running (a CUPTI call stuck at
  // exit must not hang the program; a status note says so, and this sampler starts
  // no more). With `wait` false (a signal ends the process) it does not wait at all:
  // the run loses what it had not decoded.
  void Stop(bool wait = true);
  // Moves new configurations and samples into `batch`.
  void Drain(model::Profile* batch) override;
  // For the run info, the gpu_metrics_* notes: status (why samples are missing, when
  // they are), metrics, left_out, samples, lost, overflow, bad_times, decode_ms, ...
  model::RunNotes Notes();

  static constexpr int kDecodePeriodMs = 100;
  static constexpr int kStopWaitMs = 2000;

 private:
  struct Config {
    uint32_t device_id;
    uint64_t interval_ns;
    std::vector<std::string> metrics;
  };
  void Run();
  // Sets up the devices asked for (thread only); returns those it started.
  std::set<uint32_t> SetUp(const std::set<uint32_t>& devices);
  // Starts the devices again (thread only): those an earlier session set up (with
  // `configs`, their configurations go to the profile again), or after a burst.
  void Resume(bool configs = true);
  // Stops sampling on every started device but those in `skip` (thread only);
  // failures are status notes. Returns how many it stopped.
  int StopDevices(const std::set<uint32_t>& skip = {});
  // GPU time sampled on the devices so far, all sessions (thread only).
  uint64_t SampledNs() const;
  // The run's notes, at the thread's end; marks the thread finished.
  void EndNotes() ABSL_LOCKS_EXCLUDED(mu_);
  // Makes the process's exit stop this sampler before the CUDA runtime tears its
  // contexts down (thread only, at the first device set up).
  void StopAtExit();
  // How long the thread waits between decodes: a burst, or kDecodePeriodMs.
  int WaitMs() const;
  // Decodes every device's buffer into ready_ (thread only).
  void DecodeAll();
  // With options_.verbose: a line on stderr for a decode that found samples or failed.
  void LogDecode(uint32_t device, const absl::StatusOr<PmDevice::Decoded>& got);
  // Drops the samples whose times cannot be the run's (thread only): an end before
  // the start, a start over a minute before the run began or an end over a minute
  // after now (another clock), counted in bad_times_; and those over 10 intervals
  // long, counted in long_.
  void DropBadTimes(std::vector<model::GpuSample>& samples);
  // Sets `note` to `text`, or appends it (after "; ") when the note says something else.
  void Note(model::NoteText model::RunNotes::*note, const std::string& text)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Devices of the primary contexts active now (the driver as the process loaded it).
  static std::set<uint32_t> ActivePrimaryContexts();

  CallbackSubscription* const callbacks_;
  SamplingOptions options_;
  std::thread thread_;

  absl::Mutex mu_;
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;  // the thread's last decode is done
  // A thread that did not stop in time was left running: it makes no CUPTI call
  // after the one it is in.
  std::atomic<bool> abandoned_{false};
  std::mutex stop_mu_;                             // one Stop at a time
  std::set<uint32_t> asked_ ABSL_GUARDED_BY(mu_);  // devices to set up
  std::vector<Config> configs_ready_ ABSL_GUARDED_BY(mu_);
  std::vector<model::GpuSample> ready_ ABSL_GUARDED_BY(mu_);
  std::vector<model::OwnInterval> own_ready_ ABSL_GUARDED_BY(mu_);  // decodes, to drain
  model::RunNotes notes_ ABSL_GUARDED_BY(mu_);

  // The thread's own.
  bool profiler_initialized_ = false;
  std::set<uint32_t> tried_;
  std::map<std::string, PmDevice::Choice> choices_;  // by chip
  std::vector<std::unique_ptr<PmDevice>> devices_;
  uint64_t samples_ = 0, lost_ = 0, bad_times_ = 0, long_ = 0, bursts_ = 0;
  uint64_t decode_ns_ = 0;  // in DecodeAll
  int decodes_logged_ = 0;  // verbose decode lines written (at most 200)
  bool overflow_ = false;
  bool behind_ = false;           // a decode stopped at PmDevice::kMaxRounds while sampling
  uint64_t sampled_base_ns_ = 0;  // SampledNs() at this session's start
  bool capped_ = false;           // max_samples reached: the devices were stopped
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_GPU_SAMPLER_H_
