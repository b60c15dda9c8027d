// The rows of the settings table (setting.h). Ranges are written once, here; defaults
// once, in Config's member initializers (config.h).
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "lib/config/setting.h"
#include "lib/config/values.h"

namespace cuscope::config {

// lint: table
const std::vector<Setting>& Settings() {
  using namespace values;  // NOLINT: the table reads as a list of kinds
  using T = model::AdviseThresholds;
  static const std::vector<Setting>* settings = new std::vector<Setting>{
      {"CUSCOPE_ENABLE", "enable", "Set to 0 to load cuscope without profiling.",
       Bool(&Config::enabled)},
      {"CUSCOPE_OUTPUT", "output",
       "Where the profile (SQLite, docs/profile-format.md) is written; an existing file is "
       "replaced. A child process of the profiled program writes STEM.PID.sqlite beside it "
       "(see CUSCOPE_OWNER_PID in docs/configuration.md) unless the name tells processes "
       "apart (%p, %q{VAR}, or %r in a process with a rank). A process that did no CUDA work "
       "leaves no profile.",
       Path(&Config::output, kDefaultOutput)},
      {"CUSCOPE_TRACE", "trace", "Which activity kinds to record (memory is memcpy and memset).",
       TraceList()},
      {"CUSCOPE_API", "api",
       "Which CUDA runtime and driver API calls to record: default records launches, "
       "copies, memsets, allocations and synchronizations (the list is in "
       "docs/configuration.md); all records every call; none records none (kernels are "
       "then not linked to their launch).",
       Choice(&Config::api,
              {{"default", ApiMode::kDefault}, {"all", ApiMode::kAll}, {"none", ApiMode::kNone}})},
      {"CUSCOPE_REPORT", "report", "What to print on stderr when the program ends.",
       Choice(&Config::report, {{"text", ReportMode::kText}, {"none", ReportMode::kNone}})},
      {"CUSCOPE_REPORT_TOP", "top", "Rows per table in the report printed at the end.",
       Int(&Config::report_top, 0, 1000000, "0 = all rows")},
      {"CUSCOPE_REPORT_WIDTH", "report_width",
       "Columns that every line of the report printed at the end fits in (long names are cut "
       "in the middle, long lines wrap); auto: the terminal's width when stderr is one (at "
       "least 60), else 100.",
       IntOr(&Config::report_width, 60, 100000, "auto", -1)},
      {"CUSCOPE_REPORT_RANK", "report_rank",
       "When the program runs as several ranks (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, "
       "SLURM_PROCID), the rank that prints the report at the end; all: every rank. A "
       "process without a rank prints its report.",
       IntOr(&Config::report_rank, 0, 1 << 30, "all", -1)},
      {"CUSCOPE_BUFFER_SIZE", "buffer_size", "Size of one CUPTI activity buffer.",
       Bytes(&Config::buffer_bytes, 64ull << 10, 1ull << 30)},
      {"CUSCOPE_MAX_BUFFERS", "max_buffers",
       "Cap on activity buffers held at once (memory cap = size x count); past it, CUPTI "
       "drops records, which are counted, reported at the end and stored in the profile's "
       "dropped_records.",
       Int(&Config::max_buffers, 2, 65536)},
      {"CUSCOPE_PER_THREAD_BUFFERS", "per_thread_buffers",
       "CUPTI's per-thread activity buffers (its own default since CUDA 12.3): each "
       "launching thread writes its records into a buffer of its own. Off by default: with "
       "it on, every launching thread holds a buffer, so max_buffers must exceed the "
       "launching threads or CUPTI drops records (64 threads filled the default 64).",
       Bool(&Config::per_thread_buffers)},
      {"CUSCOPE_FLUSH_PERIOD_MS", "flush_period_ms",
       "How often buffered records are written to the profile, so a crash keeps them.",
       Int(&Config::flush_period_ms, 0, 3600000, "0 = only when buffers fill")},
      {"CUSCOPE_VERBOSE", "verbose", "Print what cuscope does on stderr.", Bool(&Config::verbose)},
      {"CUSCOPE_METRICS", "metrics",
       "Hardware counters per kernel (CUPTI Range Profiler, docs/counters.md): named sets "
       "and raw metric names, comma separated. A name the GPU does not have is refused "
       "with the nearest valid names, and the trace goes on without counters. The default, "
       "verdict, is the one-pass set behind each kernel's verdict, measured by the sweep "
       "(docs/counters.md); none: no counters (also the default's value when "
       "CUSCOPE_GPU_METRICS=1 is given).",
       MetricList()},
      {"CUSCOPE_KERNELS", "kernels",
       "Measure counters only for kernels whose demangled name matches (search, not full "
       "match). Empty: all kernels.",
       Regex(&Config::kernels)},
      {"CUSCOPE_LAUNCH_SKIP", "launch_skip",
       "Matching launches to leave alone before measuring (warm-up).",
       Int(&Config::launch_skip, uint64_t{0}, UINT64_MAX)},
      {"CUSCOPE_LAUNCH_COUNT", "launch_count", "Most launches measured with counters.",
       Int(&Config::launch_count, uint64_t{0}, UINT64_MAX, "0 = no limit")},
      {"CUSCOPE_PER_SIGNATURE", "per_signature",
       "Complete counter samples per kernel signature (name, grid, block); all = every "
       "launch.",
       IntOr(&Config::per_signature, 1, 1000000, "all", 0)},
      {"CUSCOPE_REPLAY", "replay",
       "How counters are collected: sweep measures a configuration of one pass without "
       "instrumented counters in windows of consecutive launches (no replay; refused for "
       "any other configuration); rotate spreads the passes over successive launches of a "
       "signature (no replay); kernel replays each measured launch once per pass (CUPTI "
       "saves and restores memory); auto: sweep where it can measure, else kernel replay "
       "for bounded samples per signature (the default), rotate for all.",
       Choice(&Config::replay, {{"auto", ReplayMode::kAuto},
                                {"rotate", ReplayMode::kRotate},
                                {"kernel", ReplayMode::kKernel},
                                {"sweep", ReplayMode::kSweep}})},
      {"CUSCOPE_CAPTURE", "capture",
       "What to record: everything; only between cudaProfilerStart and cudaProfilerStop "
       "(torch.cuda.profiler.start()/stop()); or only inside the first N instances (all "
       "when N is left out) of regions (NVTX ranges, cuscope scopes) whose name matches "
       "REGEX, e.g. range:^step$:3. While paused, kernels, copies, memsets, syncs and CUPTI "
       "overhead are not recorded; NVTX ranges and API calls still are, so every region "
       "instance appears in the report and captured kernels are attributed to their "
       "regions.",
       CaptureSpec()},
      {"CUSCOPE_REGIONS", "regions",
       "Measure counters only for kernels launched inside a region (NVTX range or "
       "cuscope scope, open on the launching thread) whose name matches. Empty: all "
       "regions.",
       Regex(&Config::regions)},
      {"CUSCOPE_REGION_COUNTERS", "region_counters",
       "Measure each region matching CUSCOPE_REGIONS as a whole (one CUPTI user range per "
       "instance; successive instances serve as the passes; docs/counters.md) instead of "
       "its kernels one by one: the region's roofline point and verdict.",
       Bool(&Config::region_counters)},
      {"CUSCOPE_WINDOW", "window",
       "Most launches (ranges) per rotate pass: a training step's launches; the counter "
       "image holds this many ranges per context.",
       Int(&Config::window, 1, 4096)},
      {"CUSCOPE_IDLE_LAUNCHES", "idle_launches",
       "With a bounded number of counter samples (per_signature, launch_count): after this "
       "many launches in a row that leave nothing to measure, the launch callbacks go off, "
       "so the loop runs at the trace's cost, until a kernel record shows a signature "
       "still to sample (checked every flush_period_ms). A signature launched only while "
       "they are off is measured at its next launch once they are back on; one whose "
       "launches all fall within about two flush periods is missed.",
       Int(&Config::idle_launches, uint64_t{0}, UINT64_MAX, "0 = never off")},
      {"CUSCOPE_ROTATE_BUDGET_PCT", "rotate_budget_pct",
       "Rotate: the most wall time its sets may take (preparation, passes, decoding, "
       "evaluation), as a percent of the time outside them since the first set began. A "
       "set begins only if one as long as the longest of the last four still fits, and "
       "the launch callbacks go off while the budget allows none for seconds, so every "
       "launch of a long loop can be measured again and again at a bounded share of its "
       "time; a measured step still costs what a set costs. Not used by kernel replay.",
       Int(&Config::rotate_budget_pct, 0, 100000, "0 = no limit")},
      {"CUSCOPE_GPU_METRICS", "gpu_metrics",
       "Sample GPU metrics (SM activity, instruction issue, tensor pipe, DRAM and L2 "
       "throughput) every gpu_metrics_interval_us of GPU time on every GPU with a CUDA "
       "context (CUPTI PM sampling, as nsys --gpu-metrics-devices; Ampere GA10x and later), "
       "with kernel records kept: the report gives each kernel's sampled rates "
       "(docs/gpu-metrics.md). Refused with metrics: both use the GPU's performance monitors. "
       "Experimental: see docs/gpu-metrics.md for what the H200 runs showed.",
       Bool(&Config::gpu_metrics)},
      {"CUSCOPE_GPU_METRICS_INTERVAL_US", "gpu_metrics_interval_us",
       "Microseconds of GPU time between GPU metric samples. Kernels shorter than it hold "
       "no whole sample; shorter intervals make more samples to decode and store.",
       Int(&Config::gpu_metrics_interval_us, uint64_t{1}, uint64_t{1000000})},
      {"CUSCOPE_GPU_METRICS_MAX_SAMPLES", "gpu_metrics_max_samples",
       "Most GPU metric samples kept in a run (about 90 bytes each in the profile); "
       "sampling stops there, and the run's notes say how many more were dropped.",
       Int(&Config::gpu_metrics_max_samples, uint64_t{1000}, uint64_t{1000000000})},
      {"CUSCOPE_GPU_METRICS_BURST_SAMPLES", "gpu_metrics_burst_samples",
       "GPU metrics are sampled in bursts of this many samples, then paused while the "
       "burst is decoded: decoding a sample takes the CPU about 60 us (H200), more than "
       "a 10 us interval, so a repeating loop is sampled in bursts spread over its steps. "
       "0: no pause (samples the decoding cannot keep are lost; for intervals of 100 us "
       "and more).",
       Int(&Config::gpu_metrics_burst_samples, uint64_t{0}, uint64_t{100000})},
      {"CUSCOPE_SOURCE", "source",
       "Sample the PCs of every kernel (CUPTI PC sampling, continuous mode: kernels are not "
       "serialized) with why each warp waited (the stall reason), and keep the source lines "
       "of the sampled PCs and their text: `cuscope report --source` gives each kernel's hot "
       "lines (docs/source.md). Lines need kernels built with line info (nvcc -lineinfo; "
       "Triton emits it); other kernels are reported by PC offset. Refused with metrics and "
       "with gpu_metrics (counters are left off when not asked for).",
       Bool(&Config::source)},
      {"CUSCOPE_SOURCE_PERIOD", "source_period",
       "PC sampling period: one sample every 2^N cycles on each SM. Smaller periods give "
       "more samples and cost more (CUPTI decodes every sample on the CPU, and a full "
       "hardware buffer loses samples).",
       Int(&Config::source_period, 5, 31)},
      {"CUSCOPE_PYTORCH", "pytorch",
       "PyTorch attribution: `cuscope run` puts its Python hook on PYTHONPATH (a "
       "sitecustomize that chains to the program's own), which, once torch is imported, "
       "turns on torch's NVTX ranges per operator, opens a range at each Python line that "
       "calls torch, and marks ProfilerStep#N at each optimizer step unless the program "
       "marks steps itself; reports then tie each kernel to its op and line (`cuscope "
       "report --by=op`, `--by=line`; docs/pytorch.md).",
       Bool(&Config::pytorch)},
      {"CUSCOPE_PYTORCH_SHAPES", "pytorch_shapes",
       "With CUSCOPE_PYTORCH: each op's range carries its inputs' shapes (torch's "
       "record_shapes; costs more per op).",
       Bool(&Config::pytorch_shapes)},
      {"CUSCOPE_PYTORCH_OPS", "pytorch_ops",
       "With CUSCOPE_PYTORCH: torch's NVTX range around each aten op, which ties kernels, "
       "backward ones included, to their op (off: Python lines and steps only).",
       Bool(&Config::pytorch_ops)},
      {"CUSCOPE_PYTORCH_LINES", "pytorch_lines",
       "With CUSCOPE_PYTORCH: a range at each Python line that calls torch, which ties "
       "kernels to the line of the program that launched them (off: ops and steps only).",
       Bool(&Config::pytorch_lines)},
      {"CUSCOPE_PYTORCH_STEPS", "pytorch_steps",
       "With CUSCOPE_PYTORCH: the training steps (ProfilerStep#N, from the optimizer's "
       "steps) that run with op and line ranges; later steps run without them, at the "
       "trace's cost, and each of their kernels takes the op and line of the same launch "
       "(the same kernel's same occurrence) in the last attributed step. 0: every step.",
       Int(&Config::pytorch_steps, 0, 1000000000)},
      {"CUSCOPE_ADVISE", "advise",
       "Compute the findings (docs/advisor.md) at the end of the run, store them in the "
       "profile and print the top five after the report.",
       Bool(&Config::advise)},
      {"CUSCOPE_ADVISE_MIN_GAIN_PCT", "advise_min_gain_pct",
       "Findings whose estimated gain is below this % of the run's wall time (timeline "
       "rules) or GPU kernel time (kernel rules) are left out.",
       Threshold(&T::min_gain_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_HIGH_PCT", "advise_high_pct",
       "A finding is of high severity from this estimated gain on (% of its basis).",
       Threshold(&T::high_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_MEDIUM_PCT", "advise_medium_pct",
       "A finding is of medium severity from this estimated gain on (% of its basis).",
       Threshold(&T::medium_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_MIN_GAP_US", "advise_min_gap_us",
       "GPU idle gaps this long or longer are gaps of the idle-gap rule; shorter ones count "
       "for the utilization and launch-bound rules.",
       Threshold(&T::min_gap_us, 0.0, 1e9, "microseconds")},
      {"CUSCOPE_ADVISE_UTIL_WINDOW_MS", "advise_util_window_ms",
       "Length of the windows of the low-utilization rule.",
       Threshold(&T::util_window_ms, 0.001, 1e6, "milliseconds")},
      {"CUSCOPE_ADVISE_LOW_UTIL_PCT", "advise_low_util_pct",
       "A window in which the GPU is busy less than this % has low utilization.",
       Threshold(&T::low_util_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_SMALL_COPY_BYTES", "advise_small_copy_bytes",
       "A device-to-host copy of at most this many bytes is a small read (.item()).",
       Threshold(&T::small_copy_bytes, uint64_t{0}, uint64_t{1} << 40, "bytes")},
      {"CUSCOPE_ADVISE_MIN_REPEATS", "advise_min_repeats",
       "Waited small reads needed for the small-read rule to fire.",
       Threshold(&T::min_repeats, int64_t{1}, int64_t{1} << 40)},
      {"CUSCOPE_ADVISE_PINNED_GBPS", "advise_pinned_gbps",
       "Host-device bandwidth of pinned memory assumed by the pageable-copy rule when the "
       "profile has no pinned copy of 1 MiB or more in the same direction to measure it.",
       Threshold(&T::pinned_gbps, 0.001, 1e6, "GB/s")},
      {"CUSCOPE_ADVISE_LAUNCH_US", "advise_launch_us",
       "Kernels shorter than this are tiny (launch-bound rule).",
       Threshold(&T::launch_us, 0.0, 1e6, "microseconds")},
      {"CUSCOPE_ADVISE_MIN_TINY_KERNELS", "advise_min_tiny_kernels",
       "Tiny kernels needed for the launch-bound rule to fire.",
       Threshold(&T::min_tiny_kernels, int64_t{1}, int64_t{1} << 40)},
      {"CUSCOPE_ADVISE_FIRST_FACTOR", "advise_first_factor",
       "The first instance of a repeated region is slow when it takes more than this many "
       "times the median of the others.",
       Threshold(&T::first_factor, 1.0, 1e6)},
      {"CUSCOPE_ADVISE_BANK_CONFLICTS", "advise_bank_conflicts",
       "Shared-memory bank conflicts per shared load or store instruction from which the "
       "bank-conflict rule fires.",
       Threshold(&T::bank_conflicts, 0.0, 1e6)},
      {"CUSCOPE_ADVISE_SECTORS_PER_REQUEST", "advise_sectors_per_request",
       "Global-memory sectors per request from which the uncoalesced-access rule fires (4 "
       "is a warp reading consecutive 4-byte words, 16 consecutive 16-byte words).",
       Threshold(&T::sectors_per_request, 1.0, 1e6)},
      {"CUSCOPE_ADVISE_LOW_OCCUPANCY_PCT", "advise_low_occupancy_pct",
       "Achieved (else theoretical) occupancy under which the occupancy rule fires.",
       Threshold(&T::low_occupancy_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_TAIL_PCT", "advise_tail_pct",
       "Share of the GPU left idle by a grid smaller than one wave, or by a partial last "
       "wave, from which the small-grid and tail-wave rules fire.",
       Threshold(&T::tail_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_FP32_GEMM_PCT", "advise_fp32_gemm_pct",
       "FP32 roof % from which a kernel with no tensor-core operation counts as a float32 "
       "GEMM that tensor cores would speed up.",
       Threshold(&T::fp32_gemm_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_FP64_PCT", "advise_fp64_pct",
       "Share of a kernel's FLOPs in FP64 from which the FP64 rule fires (in a program "
       "whose FLOPs are mostly FP32).",
       Threshold(&T::fp64_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_ALIGNED_GEMM_PCT", "advise_aligned_gemm_pct",
       "Tensor roof % that a GEMM with 16-byte aligned operands is taken to reach, for the "
       "misaligned-GEMM rule, when the profile has no aligned GEMM of the same precision to "
       "compare with.",
       Threshold(&T::aligned_gemm_pct, 0.0, 100.0, "%")},
      {"CUSCOPE_ADVISE_STALL_PCT", "advise_stall_pct",
       "Share of warp cycles of the top stall reason from which the stall rule fires.",
       Threshold(&T::stall_pct, 0.0, 100.0, "%")},
  };
  return *settings;
}

const Setting* FindSetting(absl::string_view env) {
  for (const Setting& s : Settings()) {
    if (env == s.env) return &s;
  }
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> SettingValues(const Config& config) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Setting& s : Settings()) out.emplace_back(s.flag, s.value.format(config));
  return out;
}

std::string Setting::default_text() const { return value.format(Config{}); }

std::string Quoted(absl::string_view text) {
  constexpr size_t kQuoted = 120;
  std::string out = absl::StrCat("\"", absl::CHexEscape(text.substr(0, kQuoted)));
  if (text.size() > kQuoted) return absl::StrCat(out, "...\" (", text.size(), " bytes)");
  return out + "\"";
}

absl::Status Setting::Apply(absl::string_view text, Config* config) const {
  std::string why;
  if (value.parse(text, config, &why)) return absl::OkStatus();
  std::string detail = why.empty() ? "" : absl::StrCat(" (", why, ")");
  return absl::InvalidArgumentError(absl::StrFormat("%s=%s is not valid%s; accepted: %s", env,
                                                    Quoted(text), detail, value.accepts));
}

}  // namespace cuscope::config
