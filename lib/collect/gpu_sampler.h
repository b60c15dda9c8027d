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

#include <cstdint>
#include <map>
#include <memory>
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
  // Stops sampling on every device, decodes what is left, ends the thread. With
  // `wait` false (a signal ends the process) it does not wait for the thread, which
  // may be stuck in CUPTI: the run loses what it had not decoded.
  void Stop(bool wait = true);
  // Moves new configurations and samples into `batch`.
  void Drain(model::Profile* batch) override;
  // For the run info: "gpu_metrics.status" (why samples are missing, when they
  // are), ".metrics", ".left_out", ".samples", ".lost", ".overflow", ".bad_times",
  // ".decode_ms".
  std::map<std::string, std::string> Notes();

  static constexpr int kDecodePeriodMs = 100;

 private:
  struct Config {
    uint32_t device_id;
    uint64_t interval_ns;
    std::vector<std::string> metrics;
  };
  void Run();
  // Sets up the devices asked for (thread only).
  void SetUp(const std::set<uint32_t>& devices);
  // Resumes the devices an earlier session set up (thread only).
  void Resume();
  // Decodes every device's buffer into ready_ (thread only).
  void DecodeAll();
  // Drops the samples whose times cannot be the run's (thread only): an end before
  // the start, a start over a minute before the run began or an end over a minute
  // after now (another clock); counted in bad_times_.
  void DropBadTimes(std::vector<model::GpuSample>& samples);
  void Note(const std::string& key, const std::string& text) ABSL_LOCKS_EXCLUDED(mu_);
  // Devices of the primary contexts active now (the driver as the process loaded it).
  static std::set<uint32_t> ActivePrimaryContexts();

  CallbackSubscription* const callbacks_;
  SamplingOptions options_;
  std::thread thread_;

  absl::Mutex mu_;
  bool running_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::set<uint32_t> asked_ ABSL_GUARDED_BY(mu_);  // devices to set up
  std::vector<Config> configs_ready_ ABSL_GUARDED_BY(mu_);
  std::vector<model::GpuSample> ready_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> notes_ ABSL_GUARDED_BY(mu_);

  // The thread's own.
  bool profiler_initialized_ = false;
  std::set<uint32_t> tried_;
  std::map<std::string, PmDevice::Choice> choices_;  // by chip
  std::vector<std::unique_ptr<PmDevice>> devices_;
  uint64_t samples_ = 0, lost_ = 0, bad_times_ = 0;
  uint64_t decode_ns_ = 0;  // in DecodeAll
  bool overflow_ = false;
  bool capped_ = false;  // max_samples reached: the devices were stopped
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_GPU_SAMPLER_H_
