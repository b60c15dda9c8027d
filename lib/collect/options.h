// What the collector needs to know of a session's settings, and nothing more.
// lib/inject/collect_options.cc (CollectOptionsFrom) fills it from the settings;
// collect never sees them.
#ifndef CUSCOPE_LIB_COLLECT_OPTIONS_H_
#define CUSCOPE_LIB_COLLECT_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cuscope::collect {

// Which CUDA API calls are recorded: none, the default list (launches, copies, ...;
// lib/collect/activity.h), or every call.
enum class ApiRecords { kNone, kDefault, kAll };

struct TraceOptions {
  // Activity kinds recorded.
  bool kernel = true;
  bool memcpy = true;
  bool memset = true;
  bool sync = true;
  bool nvtx = true;
  bool overhead = true;
  ApiRecords api = ApiRecords::kDefault;
  uint64_t buffer_bytes = 8ull << 20;  // each CUPTI activity buffer
  int max_buffers = 64;                // buffers handed out at most
  bool per_thread_buffers = false;     // CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER
};

// What to record: everything, between cudaProfilerStart/Stop, or inside the first
// `count` instances (0 = all) of regions matching `range`.
enum class CaptureMode { kAll, kProfilerApi, kRange };

struct CaptureOptions {
  CaptureMode mode = CaptureMode::kAll;
  std::string range;  // regex on the region's name
  uint64_t count = 0;
};

enum class ReplayMode { kAuto, kRotate, kKernel, kSweep };

// Hardware counters (off when `metrics` is empty).
struct CounterOptions {
  std::vector<std::string> metrics;  // named sets ("roofline") and raw metric names
  std::string kernels;               // regex on the demangled kernel name; empty = all
  uint64_t launch_skip = 0;          // matching launches left alone first
  uint64_t launch_count = 0;         // most launches measured; 0 = no limit
  int per_signature = 1;             // complete samples per (name, grid, block); 0 = all
  ReplayMode replay = ReplayMode::kAuto;
  int window = 2048;  // most launches (ranges) in one rotate pass
  // With a bounded number of samples (per_signature or launch_count): after this many
  // launches in a row with nothing left to measure, the launch callbacks go off until
  // a kernel record shows a signature still to sample (launch_switch.h). 0: never.
  uint64_t idle_launches = 1000;
  // Rotate: the wall time its sets take (preparation, passes, decoding, evaluation) at
  // most this percent of the time outside them since the first set (set_budget.h); a
  // set waits until the budget allows it. 0: no limit.
  int rotate_budget_pct = 0;
  // How often the session ticks the sampler (CounterSampler::Tick, after each periodic
  // flush): the flush period. 0: never.
  int tick_ms = 1000;
  std::string regions;           // counters only inside regions matching this regex
  bool region_counters = false;  // measure matching regions as a whole (user range)
  // Debugging switches, from the environment (lib/inject/collect_options.cc):
  // CUSCOPE_INTERNAL_SETCONFIG=1 makes rotate call SetConfig(passIndex) before each
  // window (its image then not reused across sets);
  bool setconfig_each_pass = false;
  // rotate's counter image sized to each set when it is re-initialized
  // (ImageRanges::Before), not to the window limit once; CUSCOPE_INTERNAL_IMAGE_SIZING=0
  // turns it off (the window limit's image).
  bool size_images = true;
};

// GPU metrics sampling (CUPTI PM sampling; lib/collect/gpu_sampler.h).
struct SamplingOptions {
  bool enabled = false;
  uint64_t interval_ns = 10000;
  std::vector<std::string> metrics;  // empty: metrics::DefaultSampledMetrics()
  uint64_t max_samples = 1000000;    // per run; sampling stops there
  uint64_t burst_samples = 0;        // bursts of this many, paused while decoded; 0: no pause
  uint64_t run_start_ns = 0;         // CUPTI's clock: earlier samples are not the run's
  bool verbose = false;              // a line on stderr per decode that found samples or failed
};

// PC sampling (CUPTI PC Sampling API, continuous; lib/collect/pc_sampler.h).
struct SourceOptions {
  bool enabled = false;
  uint32_t period = 16;  // log2 of cycles between samples on each SM
  bool verbose = false;  // a line on stderr per context begun or ended
};

struct CollectOptions {
  TraceOptions trace;
  CaptureOptions capture;
  CounterOptions counters;
  SamplingOptions sampling;
  SourceOptions source;
  bool verbose = false;  // progress lines on stderr

  bool counters_enabled() const { return !counters.metrics.empty(); }
  // Region boundaries must be followed: capture by region, or counters by region.
  bool tracks_regions() const {
    return capture.mode == CaptureMode::kRange || (counters_enabled() && !counters.regions.empty());
  }
  // Capture control runs (lib/collect/capture): to capture, or to follow regions.
  bool needs_capture_control() const {
    return capture.mode != CaptureMode::kAll || tracks_regions();
  }
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_OPTIONS_H_
