// Per-kernel hardware counters with the CUPTI Range Profiler (auto range, one range
// per kernel launch), attributed to launches from our own launch callbacks.
//
// Two strategies:
//  - rotate (user replay): one multi-pass configuration; successive windows of
//    launches of one kernel signature are the passes (window k collects pass k mod
//    P). Range i of every pass must be the same signature, or the set is dropped.
//    No replay, no memory save/restore.
//  - kernel replay: CUPTI replays each measured launch once per pass.
// And region counters (config.region_counters): a region (NVTX range or cuscope
// scope) matching config.regions is one user range; its successive instances are
// the passes of one set (user replay), so a repeating region (a training step's
// forward) gets one roofline point for all its kernels together.
#ifndef CUSCOPE_LIB_COLLECT_COUNTERS_H_
#define CUSCOPE_LIB_COLLECT_COUNTERS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "lib/inject/config.h"
#include "lib/model/profile.h"

namespace cuscope::collect::counters {

// Which strategy a configuration uses (auto: rotate only when every launch is
// measured, kernel replay when a bounded number of samples per signature is).
bool UsesRotate(const config::Config& config);
// True if the metrics include SASS instruction counts (smsp__sass_*), which CUPTI
// gathers by instrumenting kernels. Measured on the H200 (CUDA 13.0): with rotate
// (user replay) and kernel activity tracing on together, they read 0 (FFMA of a
// SAXPY on 2^26 floats: 0 instead of 67,108,864); with kernel tracing off, exact.
bool NeedsInstrumentedCounters(const config::Config& config);

// Subscribes to launch callbacks and measures launches as configured. Problems
// (not permitted, busy, unsupported) are reported through notes, not failures:
// the trace goes on without counters.
absl::Status Start(const config::Config& config);
// Closes open windows, decodes what is complete, unsubscribes.
void Stop();
// Region counters: the calling thread's region stack (outermost first) just after a
// push / just before a pop (from lib/collect/capture's region tracking).
void OnRegionPush(const std::vector<std::string>& stack);
void OnRegionPop(const std::vector<std::string>& stack);
bool Active();
// True if the launch with this correlation id was measured (serialized, slowed).
bool IsMeasured(uint32_t correlation_id);
// Moves finished counter sets and device metrics (peaks, clocks) into `batch`.
void Drain(model::Profile* batch);
// What the run info should say about counters: "counters.status" (why counters are
// missing, when they are), chip, passes, strategy, launches measured, samples.
std::map<std::string, std::string> Notes();

struct Stats {
  uint64_t launches_seen = 0;
  uint64_t launches_measured = 0;  // region instances in region mode
  uint64_t sets_complete = 0;
  uint64_t sets_dropped = 0;  // signatures of a set's passes did not match
  uint64_t setup_ns = 0;      // profiler initialization, metric configuration, enable
  uint64_t measure_ns = 0;    // inside measured launches and decoding (kernel replay, rotate)
};
Stats GetStats();

}  // namespace cuscope::collect::counters

#endif  // CUSCOPE_LIB_COLLECT_COUNTERS_H_
