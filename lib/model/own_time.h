// cuscope's own time as data: the intervals in which the profiler itself worked on the
// GPU or held a thread of the program, so that analyses can leave them out of the
// program's time (lib/analysis/own_time.h) and traces can draw them apart.
//
// Times are nanoseconds on CUPTI's clock, like every record of the profile.
#ifndef CUSCOPE_LIB_MODEL_OWN_TIME_H_
#define CUSCOPE_LIB_MODEL_OWN_TIME_H_

#include <cstdint>

namespace cuscope::model {

// What cuscope did in an own interval.
enum class OwnKind : uint8_t {
  // A launch measured by kernel replay: from the Range Profiler's Start in the launch's
  // API_ENTER callback to the end of decoding its set in the API_EXIT callback. CUPTI
  // replays the kernel once per pass inside the launch call, so the launching thread
  // is held throughout; the kernel's own run is one of the passes.
  kKernelReplay = 0,
  // One pass of a rotate set: a window of launches on one context, from the Range
  // Profiler's Start to its Stop. The program's launches run inside it, one at a time
  // with CUPTI's work between them.
  kRotateWindow = 1,
  // The sweep's window (one pass), from Start to Stop, like a rotate window.
  kSweepWindow = 2,
  // A measured region instance's Start, or its Stop with the decoding of a finished
  // set, on the region's thread (the region's own work between them is the program's).
  kRegionCounters = 3,
  // Decoding the GPU metrics' hardware buffers (PM sampling), on the sampler's thread.
  kPmDecode = 4,
  // A batch of records written to the profile file, on the thread that flushed
  // (CUPTI's buffer thread, cuscope's flush thread, or a program thread that flushed).
  kFlush = 5,
};

// Device id of an interval that belongs to no device (a flush).
inline constexpr uint32_t kNoDevice = 0xffffffffu;

struct OwnInterval {
  uint64_t start_ns = 0, end_ns = 0;
  OwnKind kind = OwnKind::kKernelReplay;
  // The thread that did the work (or was held), as CUPTI's API records give it.
  uint32_t thread_id = 0;
  uint32_t device_id = kNoDevice;
  uint32_t context_id = 0;  // CUPTI's id of the context, as kernel records give it; 0 unknown
  // The launches involved: `launches` launches on the context whose correlation ids
  // run from `first_correlation_id` to `last_correlation_id` (0, 0 and 0 for none).
  uint32_t first_correlation_id = 0, last_correlation_id = 0;
  uint32_t launches = 0;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const OwnInterval& o) const;
};

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_OWN_TIME_H_
