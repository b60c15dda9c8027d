// One device's CUPTI PM sampling: a one-pass configuration of metrics read every
// interval of GPU time into a hardware buffer on the GPU, decoded into samples on
// the host. The calls follow the sequence of tests/gpu/probes/pm_sampling_probe.cu
// (docs/performance.md, "PM sampling"), in its order: profiler initialized, chip
// name, host configuration, Enable, SetConfig, counter data image, Start; then
// DecodeData, GetCounterDataInfo, GetSampleInfo and EvaluateToGpuValues per sample.
// Decoding may run while sampling does (it empties the hardware buffer); a counter
// data image holds kImageSamples and is reset from a blank copy after each decode.
//
// Not thread-safe: the GPU sampler (gpu_sampler.h) calls it from its one thread.
#ifndef CUSCOPE_LIB_COLLECT_PM_DEVICE_H_
#define CUSCOPE_LIB_COLLECT_PM_DEVICE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/model/profile.h"

struct CUpti_PmSampling_Object;
struct CUpti_Profiler_Host_Object;

namespace cuscope::collect {

class PmDevice {
 public:
  struct Choice {
    std::vector<std::string> metrics;   // sampled, in this order
    std::vector<std::string> left_out;  // "name (why)"
  };
  // Which of `wanted` device `index` samples: each alone must be accepted in one
  // pass; then, together, the last ones are left out until the rest fit one pass.
  static absl::StatusOr<Choice> ChooseMetrics(const std::string& chip,
                                              const std::vector<std::string>& wanted);
  // Enables, configures and starts sampling of `metrics` on device `index`, every
  // `interval_ns` of GPU time.
  static absl::StatusOr<std::unique_ptr<PmDevice>> Start(uint32_t index, const std::string& chip,
                                                         const std::vector<std::string>& metrics,
                                                         uint64_t interval_ns);
  // Releases the host object. Sampling is stopped, not disabled: disabling a PM
  // sampling object finalizes CUPTI as a whole (noted in XLA's PM sampler), which
  // would end activity tracing before its last flush.
  ~PmDevice();
  PmDevice(const PmDevice&) = delete;
  PmDevice& operator=(const PmDevice&) = delete;

  uint32_t index() const { return index_; }
  const std::vector<std::string>& metrics() const { return metrics_; }

  struct Decoded {
    size_t samples = 0;                  // appended
    size_t dropped = 0;                  // decoded past `room`
    bool overflow = false;               // the hardware buffer overflowed: samples were lost
    int rounds = 0;                      // decode calls (an image holds kImageSamples)
    bool behind = false;                 // stopped at kMaxRounds while sampling: more were waiting
    int stop_reason = -1;                // the last call's CUpti_PmSampling_DecodeStopReason
    uint64_t first_ns = 0, last_ns = 0;  // the span of the samples appended
  };
  // Decodes what the hardware buffer holds and appends the completed samples (their
  // device_id set to the index), at most `room` of them (the rest are decoded and
  // dropped: the buffer must still be emptied). On an error, the samples of the
  // image that failed are not appended and the image is reset, so that none is read
  // twice. A stopped device is decoded until its buffer is empty; one still sampling
  // for at most kMaxRounds images (its buffer refills as it is read). With `quit` set,
  // no further decode call is made.
  absl::StatusOr<Decoded> Decode(size_t room, std::vector<model::GpuSample>* out,
                                 const std::atomic<bool>& quit);
  bool started() const { return started_; }
  // Stops sampling (what was sampled stays to decode).
  absl::Status Stop();
  // Starts sampling again after Stop (a later session), every `interval_ns`.
  absl::Status Resume(uint64_t interval_ns);

  // GPU time sampled so far (from each start to its stop).
  uint64_t sampled_ns() const { return sampled_ns_; }

  // At about 52 KB of image a sample (8 metrics; docs/performance.md, "PM sampling
  // decoded while the program runs"): about 52 MB.
  static constexpr uint32_t kImageSamples = 1000;
  static constexpr int kMaxRounds = 64;  // images decoded in one Decode while sampling
  static constexpr size_t kHardwareBufferBytes = size_t{512} << 20;

 private:
  PmDevice(uint32_t index, std::vector<std::string> metrics)
      : index_(index), metrics_(std::move(metrics)) {}
  absl::Status Configure(uint64_t interval_ns);
  absl::Status StartSampling();
  // Evaluates the samples of the decoded image.
  absl::Status ReadSamples(size_t completed, size_t room, std::vector<model::GpuSample>* out);

  uint32_t index_;
  std::vector<std::string> metrics_;
  std::vector<const char*> names_;              // metrics_' c_str(), for CUPTI
  CUpti_Profiler_Host_Object* host_ = nullptr;  // the configuration's: evaluates samples
  CUpti_PmSampling_Object* object_ = nullptr;
  std::vector<uint8_t> config_;
  std::vector<uint8_t> image_, blank_;  // the counter data image, and as initialized
  bool started_ = false;
  uint64_t started_ns_ = 0;  // CUPTI's clock at the last start
  uint64_t sampled_ns_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_PM_DEVICE_H_
