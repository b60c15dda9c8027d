// Hardware counters, analysed: the ceilings of each GPU (from measured per-cycle
// peaks and clocks), per kernel signature the achieved FLOP/s and bytes/s, the
// arithmetic intensity at each memory level, the % of each roof and a verdict
// (compute-, DRAM-, L2-, L1- or latency-bound), like ncu's Speed of Light and
// roofline sections. Plus a theoretical-occupancy calculator (Hopper rules).
//
// Pure functions: profile in, findings out. No I/O, no CUPTI. The metric names are
// those of lib/model/metrics.h; docs/counters.md explains every rule used here.
#ifndef CUSCOPE_LIB_ANALYSIS_ROOFLINE_H_
#define CUSCOPE_LIB_ANALYSIS_ROOFLINE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/analysis/regions.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// Utilisation (% of peak) at or above which a unit is a kernel's limiter.
inline constexpr double kBoundThresholdPercent = 60.0;
// Compute names the verdict when its % of peak is within this many points of the
// busiest memory level (and above the threshold).
inline constexpr double kComputeTiePoints = 5.0;

// The roofs of one GPU, from the hardware: per-cycle peaks x measured clocks.
// A ceiling whose inputs were not measured is 0 and is not used.
struct Ceilings {
  uint32_t device_id = 0;
  double sm_clock_hz = 0;
  double peak_fp64_flops = 0;         // dfma peak x 2 x SM clock
  double peak_fp32_flops = 0;         // ffma peak x 2 x SM clock
  double peak_fp16_flops = 0;         // hfma (half2) peak x 4 x SM clock
  double peak_tensor_bf16_flops = 0;  // bf16 tensor ops peak / 2 (dense) x SM clock (ops = FLOPs)
  double peak_dram_bytes_per_s = 0;   // DRAM bytes/cycle peak x DRAM clock
  double peak_l2_bytes_per_s = 0;     // L2 bytes/cycle peak x L2 clock
  double peak_l1_bytes_per_s = 0;     // L1 bytes/cycle peak x L1 clock
  bool valid = false;                 // at least one ceiling is known
};

// Per metric: the value in profile.device_metrics for the device when present,
// else the median of that metric over the device's CounterSets.
Ceilings ComputeCeilings(const model::Profile& profile, uint32_t device_id);
// The ceilings of every device that has counter sets or device metrics, by id.
std::vector<Ceilings> ComputeAllCeilings(const model::Profile& profile);

// Theoretical occupancy of a launch configuration on one SM.
struct Occupancy {
  bool valid = false;      // false when the block cannot launch (too many threads/registers/smem)
  int blocks_per_sm = 0;
  int warps_per_sm = 0;
  double percent = 0;      // warps_per_sm / max warps per SM x 100
  std::string limiter;     // "warps", "blocks", "registers", "shared memory" ("" when invalid)
  // Blocks per SM allowed by each limit (a large number when not limiting).
  int limit_warps = 0, limit_blocks = 0, limit_registers = 0, limit_shared = 0;
};

// Hopper (sm_90) rules: warps per block = ceil(threads / warp size); registers are
// allocated per warp in units of 256 (registers per thread rounded up to a multiple
// of 8), at most 255 per thread, each of the 4 SM sub-partitions holding a quarter
// of the register file; shared memory per block = (bytes + 1 KB reserved) rounded
// up to 128 bytes. Limits come from `device`; a field that is 0 falls back to the
// H100 value (64 warps, 32 blocks, 64K registers per SM and per block, 228 KB of
// shared memory per SM, 1024 threads per block, warp size 32).
Occupancy TheoreticalOccupancy(const model::DeviceInfo& device, uint32_t threads_per_block,
                               uint32_t registers_per_thread, uint32_t shared_bytes_per_block);

enum class Verdict : uint8_t {
  kComputeBound = 0,
  kDramBound,
  kL2Bound,
  kL1Bound,
  kLatencyBound,
  kUnknown,
};
// "compute-bound", "DRAM-bound", "L2-bound", "L1-bound", "latency-bound", "unknown".
const char* VerdictName(Verdict v);

enum class Precision : uint8_t { kFp64 = 0, kFp32, kFp16, kTensorBf16 };
const char* PrecisionName(Precision p);  // "FP64", "FP32", "FP16", "BF16 tensor"

struct StallShare {
  std::string reason;    // "long_scoreboard", ...
  double percent = 0;    // stalled_<reason>.avg / warps_active.avg x 100
};

// Counters of one kernel signature (device, name, grid, block): the average over
// its CounterSets, and what follows from them. A value that was not measured is 0.
struct KernelCounters {
  // --- The signature.
  uint32_t device_id = 0;
  std::string name;
  model::Dim3 grid, block;
  bool region = false;  // a user range measured as a whole (no grid), not a kernel
  // From a kernel record of the signature (0 when none was found).
  bool launch_config_known = false;
  uint32_t registers_per_thread = 0;
  uint32_t shared_bytes_per_block = 0;  // static + dynamic

  // --- How it was measured.
  uint64_t sets = 0;                // CounterSets averaged
  std::vector<uint32_t> set_indices;  // those sets, as indices into profile.counters
  uint64_t measured_launches = 0;   // correlation ids over those sets
  uint32_t max_passes = 0;
  std::vector<model::CounterStrategy> strategies;  // each strategy seen, first-seen order
  std::string StrategyNames() const;               // "rotate", "rotate+kernel replay", ...

  // --- Kernel time of the signature, from the profile's kernel records.
  uint64_t launches = 0;        // kernel records of the signature
  uint64_t total_time_ns = 0;   // ranking key (see AnalyzeCounters)
  double time_percent = 0;      // of the profile's total kernel time

  // Every metric, averaged over the sets that have it, sorted by name.
  std::vector<std::pair<std::string, double>> values;

  // --- Roofline.
  double duration_ns = 0;  // gpu__time_duration.sum
  double fp64_flops = 0, fp32_flops = 0, fp16_flops = 0, tensor_flops = 0;
  double total_flops = 0;
  double dram_bytes = 0, l2_bytes = 0, l1_bytes = 0;
  double fp64_flops_per_s = 0, fp32_flops_per_s = 0, fp16_flops_per_s = 0,
         tensor_flops_per_s = 0, total_flops_per_s = 0;
  double dram_bytes_per_s = 0, l2_bytes_per_s = 0, l1_bytes_per_s = 0;
  // FLOPs per byte at each level; +infinity when no bytes moved there (printed "-").
  double ai_dram = 0, ai_l2 = 0, ai_l1 = 0;
  // % of each roof: achieved / ceiling x 100 (0 when the ceiling is unknown).
  double pct_fp64 = 0, pct_fp32 = 0, pct_fp16 = 0, pct_tensor = 0;
  // Utilisation of the memory levels: the measured pct_of_peak metric when present
  // (L1: max of bytes and LSU wavefronts), else achieved / ceiling x 100.
  double pct_dram = 0, pct_l2 = 0, pct_l1 = 0;
  double pct_compute = 0;  // max over the precisions
  bool compute_known = false, dram_known = false, l2_known = false, l1_known = false;
  Precision dominant = Precision::kFp32;  // the precision with the highest % of its roof
  // Peak FLOP/s of the dominant precision / each bandwidth (FLOP/byte; 0 when unknown).
  double ridge_dram = 0, ridge_l2 = 0, ridge_l1 = 0;

  // --- Verdict.
  Verdict verdict = Verdict::kUnknown;
  // Latency-bound and the grid has fewer blocks than one wave: too little parallelism.
  bool small_grid = false;
  // Blocks in one wave: SMs x theoretical blocks per SM (SMs alone when the launch
  // configuration is unknown); 0 for regions.
  uint64_t wave_blocks = 0;
  std::string reason;       // one line, in numbers
  // Regions: the GPU time of the region's kernels per instance, from the instances
  // that have kernel records (0 when none), and the FLOP/s while they run. The
  // region's duration is its span, gaps between kernels included: the two differ
  // when the GPU waits on the CPU. Appended to `reason`.
  double region_kernel_ns = 0;
  double region_kernel_flops_per_s = 0;

  // --- Optional sections, present when their metrics were measured.
  bool has_occupancy = false;
  double achieved_occupancy_pct = 0;   // sm__warps_active ... pct_of_peak_sustained_active
  double achieved_warps_per_sm = 0;    // sm__warps_active.avg.per_cycle_active
  Occupancy theoretical;               // valid when the launch configuration is known

  std::vector<StallShare> stalls;      // ranked, descending; empty when not measured

  bool has_memory = false;
  double shared_ld_conflicts_per_inst = 0, shared_st_conflicts_per_inst = 0;
  double global_ld_sectors_per_request = 0, global_st_sectors_per_request = 0;

  bool has_sol = false;
  double sol_sm_pct = 0, sol_memory_pct = 0, sol_dram_pct = 0, sol_l2_pct = 0, sol_l1_pct = 0,
         sol_tensor_pipe_pct = 0, sol_fma_pipe_pct = 0;
  std::string sol_highest_unit;  // "SM", "DRAM", "L2", "L1", "tensor pipe", "FMA pipe"

  // The averaged value of a metric, or `fallback` when it was not measured.
  double value(const std::string& metric, double fallback = 0) const;
  bool has(const std::string& metric) const;
};

// One KernelCounters per signature, ranked by the signature's total kernel time,
// descending (ties by name). The total kernel time is that of the profile's
// kernel records of the signature: when some launches were not measured, their
// mean duration x all launches (measured launches are slowed by collection); else
// the sum of all. Regions and signatures without kernel records use the measured
// duration x sets.
std::vector<KernelCounters> AnalyzeCounters(const model::Profile& profile);
// The same with the profile's ceilings (ComputeAllCeilings) and, when not null, its
// region rows (SummarizeRegions) already at hand.
std::vector<KernelCounters> AnalyzeCounters(const model::Profile& profile,
                                            const std::vector<Ceilings>& ceilings,
                                            const std::vector<RegionSummaryRow>* region_rows);

// What is missing and why: "key: value" for each run.extra key starting with
// "counters." (prefix removed), e.g. "status: not permitted: ERR_NVGPUCTRPERM ...",
// then a note for each device whose counters give no ceilings.
std::vector<std::string> CounterNotes(const model::Profile& profile);
std::vector<std::string> CounterNotes(const model::Profile& profile,
                                      const std::vector<Ceilings>& ceilings);

// The verdict as reports label it: "latency-bound (small grid)" when the grid is
// under one wave, else VerdictName.
std::string VerdictLabel(const KernelCounters& k);

// Numbers as the reports print them: "-" for infinity/NaN, "14" from 10 up, "6.5"
// from 1 up, "0.17" (2 significant digits) below.
std::string FormatRatio(double v);
// "66.9 TFLOP/s", "4.80 TB/s" style: value with an SI prefix and a unit.
std::string FormatRate(double v, const char* unit);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_ROOFLINE_H_
