// Settings of a profiling session, from the environment (CUSCOPE_*), from the
// `cuscope run` command's flags or from cuscope_start's text. The values are the
// members of Config below (their initializers are the defaults); how each is named,
// parsed, printed and documented is one row of the table in setting.h.
#ifndef CUSCOPE_LIB_CONFIG_CONFIG_H_
#define CUSCOPE_LIB_CONFIG_CONFIG_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/model/advise_thresholds.h"

namespace cuscope::config {

enum class ApiMode { kNone, kDefault, kAll };
enum class ReplayMode { kAuto, kRotate, kKernel, kSweep };
enum class CaptureMode { kAll, kProfilerApi, kRange };
enum class ReportMode { kNone, kText };

// The profile's path when CUSCOPE_OUTPUT is not given ("%p" becomes the pid).
inline constexpr const char* kDefaultOutput = "cuscope-%p.sqlite";

// Which activity kinds to record.
struct TraceKinds {
  bool kernel = true;
  bool memcpy = true;
  bool memset = true;
  bool api = true;
  bool sync = true;
  bool nvtx = true;
  bool overhead = true;
};

struct Config {
  bool enabled = true;
  std::string output;  // as given (may hold %p, %h, %r, %q{VAR}: output_path.h); empty =
                       // kDefaultOutput
  TraceKinds trace;
  ApiMode api = ApiMode::kDefault;
  ReportMode report = ReportMode::kText;
  int report_top = 10;
  int report_width = -1;  // columns of the report (0 = no limit); -1 = auto (report_width.h)
  uint64_t buffer_bytes = 8ull << 20;
  int max_buffers = 64;
  bool per_thread_buffers = false;  // CUPTI's per-thread activity buffers
  int flush_period_ms = 1000;
  bool verbose = false;
  int report_rank = 0;  // the rank that prints the report (rank.h); -1 = every rank

  // The advisor: findings computed at the end of the run and stored in the profile,
  // and their thresholds (also read by `cuscope advise` and `cuscope report`).
  bool advise = true;
  model::AdviseThresholds thresholds;

  // Hardware counters (off when `metrics` is empty: CUSCOPE_METRICS=none). On by default
  // with the one-pass `verdict` set, which --replay=auto measures by the sweep.
  std::vector<std::string> metrics = {"verdict"};  // named sets and raw metric names
  std::string kernels;        // regex on the demangled kernel name; empty = all
  uint64_t launch_skip = 0;   // matching launches left alone first
  uint64_t launch_count = 0;  // most launches measured; 0 = no limit
  int per_signature = 1;      // complete samples per (name, grid, block); 0 = all
  ReplayMode replay = ReplayMode::kAuto;
  int window = 2048;  // most launches (ranges) in one rotate pass
  uint64_t idle_launches =
      1000;                      // launch callbacks off after this many settled launches; 0 = never
  int rotate_budget_pct = 0;     // rotate's sets: at most this % of the time outside them
  std::string regions;           // counters only inside regions matching this regex
  bool region_counters = false;  // measure matching regions as a whole (user range)

  // GPU metrics sampled every `gpu_metrics_interval_us` of GPU time (CUPTI PM
  // sampling), at most `gpu_metrics_max_samples` samples a run.
  bool gpu_metrics = false;
  uint64_t gpu_metrics_interval_us = 10;
  uint64_t gpu_metrics_max_samples = 1000000;
  // Sampling runs in bursts of this many samples, paused while they are decoded (0:
  // without pause, as long as decoding keeps up).
  uint64_t gpu_metrics_burst_samples = 2000;

  // PC sampling (source hotspots): a sample every 2^source_period cycles on each SM.
  bool source = false;
  int source_period = 16;
  // PyTorch attribution (`cuscope run --pytorch`): the command puts its Python hook on
  // PYTHONPATH, which turns on torch's operator ranges (with input shapes when
  // `pytorch_shapes`; off with `pytorch_ops`), Python line ranges (off with
  // `pytorch_lines`) and ProfilerStep#N steps. The library itself reads none of them.
  bool pytorch = false;
  bool pytorch_shapes = false;
  bool pytorch_ops = true;
  bool pytorch_lines = true;
  // The ProfilerStep#N steps that get op and line ranges (0: every one); later steps run
  // without them and take the attribution of the last attributed step's launches.
  int pytorch_steps = 3;

  // What to record: everything, between cudaProfilerStart/Stop, or inside the first
  // `capture_count` instances (0 = all) of regions matching `capture_range`.
  CaptureMode capture = CaptureMode::kAll;
  std::string capture_range;
  uint64_t capture_count = 0;
  bool counters_enabled() const { return !metrics.empty(); }
  // Region boundaries must be followed: capture by region, or counters by region.
  bool tracks_regions() const {
    return capture == CaptureMode::kRange || (counters_enabled() && !regions.empty());
  }
  // Capture control runs (lib/collect/capture): to capture, or to follow regions.
  bool needs_capture_control() const { return capture != CaptureMode::kAll || tracks_regions(); }
};

// Parses "8M", "512K", "1G", "4096" into bytes.
absl::StatusOr<uint64_t> ParseBytes(absl::string_view text);

}  // namespace cuscope::config

#endif  // CUSCOPE_LIB_CONFIG_CONFIG_H_
