#include "lib/inject/collect_options.h"

#include <cstdlib>

namespace cuscope::inject {

collect::CollectOptions CollectOptionsFrom(const config::Config& c) {
  collect::CollectOptions o;
  o.trace.kernel = c.trace.kernel;
  o.trace.memcpy = c.trace.memcpy;
  o.trace.memset = c.trace.memset;
  o.trace.sync = c.trace.sync;
  o.trace.nvtx = c.trace.nvtx;
  o.trace.overhead = c.trace.overhead;
  o.trace.api = !c.trace.api                         ? collect::ApiRecords::kNone
                : c.api == config::ApiMode::kAll     ? collect::ApiRecords::kAll
                : c.api == config::ApiMode::kDefault ? collect::ApiRecords::kDefault
                                                     : collect::ApiRecords::kNone;
  o.trace.buffer_bytes = c.buffer_bytes;
  o.trace.max_buffers = c.max_buffers;
  o.trace.per_thread_buffers = c.per_thread_buffers;
  o.capture.mode = c.capture == config::CaptureMode::kProfilerApi
                       ? collect::CaptureMode::kProfilerApi
                   : c.capture == config::CaptureMode::kRange ? collect::CaptureMode::kRange
                                                              : collect::CaptureMode::kAll;
  o.capture.range = c.capture_range;
  o.capture.count = c.capture_count;
  o.counters.metrics = c.metrics;
  o.counters.kernels = c.kernels;
  o.counters.launch_skip = c.launch_skip;
  o.counters.launch_count = c.launch_count;
  o.counters.per_signature = c.per_signature;
  o.counters.replay = c.replay == config::ReplayMode::kRotate   ? collect::ReplayMode::kRotate
                      : c.replay == config::ReplayMode::kKernel ? collect::ReplayMode::kKernel
                      : c.replay == config::ReplayMode::kSweep  ? collect::ReplayMode::kSweep
                                                                : collect::ReplayMode::kAuto;
  o.counters.window = c.window;
  o.counters.idle_launches = c.idle_launches;
  o.counters.rotate_budget_pct = c.rotate_budget_pct;
  o.counters.tick_ms = c.flush_period_ms;
  o.counters.regions = c.regions;
  o.counters.region_counters = c.region_counters;
  // Debugging switches of the counters, not settings: read from the environment only.
  const char* setconfig = std::getenv("CUSCOPE_INTERNAL_SETCONFIG");
  o.counters.setconfig_each_pass = setconfig != nullptr && setconfig[0] == '1';
  const char* sizing = std::getenv("CUSCOPE_INTERNAL_IMAGE_SIZING");
  o.counters.size_images = sizing == nullptr || sizing[0] != '0';
  o.sampling.enabled = c.gpu_metrics;
  o.sampling.interval_ns = c.gpu_metrics_interval_us * 1000;
  o.sampling.max_samples = c.gpu_metrics_max_samples;
  o.sampling.burst_samples = c.gpu_metrics_burst_samples;
  o.sampling.verbose = c.verbose;
  o.source.enabled = c.source;
  o.source.period = static_cast<uint32_t>(c.source_period);
  o.source.verbose = c.verbose;
  o.verbose = c.verbose;
  return o;
}

}  // namespace cuscope::inject
