// CUPTI's Range Profiler, one object per CUDA context: its calls and nothing else
// (no decisions, no locks). The counter sampler decides what to call and when.
#ifndef CUSCOPE_LIB_COLLECT_RANGE_PROFILER_H_
#define CUSCOPE_LIB_COLLECT_RANGE_PROFILER_H_

#include <cuda.h>
#include <cupti_result.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/collect/uninitialized_buffer.h"

struct CUpti_RangeProfiler_Object;

namespace cuscope::collect {

// "what failed: why", with the remedy for the usual causes (not permitted, busy,
// not supported).
std::string ExplainCupti(const char* what, CUptiResult r);

// cuptiProfilerInitialize (once per process, before the first Enable).
CUptiResult InitializeProfiler();
// The device id of a context (0 when CUPTI cannot say).
uint32_t DeviceOf(CUcontext ctx);
// The chip name of a device ("GH100").
CUptiResult ChipName(uint32_t device_id, std::string* chip);

class RangeProfiler {
 public:
  struct StopResult {
    CUptiResult result;
    size_t pass_index = 0;  // the pass that comes next
    size_t target_level = 1;
    bool all_passes_submitted = false;
  };
  struct DecodeResult {
    CUptiResult result;
    size_t ranges_dropped = 0;  // the counter image was full
  };

  bool enabled() const { return object_ != nullptr; }
  const UninitializedBuffer& counter_data() const { return counter_data_; }

  CUptiResult Enable(CUcontext ctx);
  // Disables the profiler on the context (also after a failure: a later session
  // must be able to enable it again). The object is kept if CUPTI refuses.
  CUptiResult Disable();
  // Sizes and initializes the counter data image for `metrics` and `max_ranges`
  // ranges. Sizing again before re-initializing a used image is required (CUDA
  // 13.0). On failure `*failed_call` names the call.
  CUptiResult InitCounterData(const std::vector<std::string>& metrics, size_t max_ranges,
                              const char** failed_call);
  CUptiResult SetConfig(const std::vector<uint8_t>& image, bool user_range, bool user_replay,
                        size_t max_ranges, size_t pass, size_t level);
  CUptiResult Start();
  StopResult Stop();
  CUptiResult PushRange(const char* name);
  CUptiResult PopRange();
  DecodeResult Decode();
  // Ranges in the decoded counter data image.
  size_t DecodedRanges();

 private:
  CUpti_RangeProfiler_Object* object_ = nullptr;
  UninitializedBuffer counter_data_;  // grown without zeroing: CUPTI initializes it
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_RANGE_PROFILER_H_
