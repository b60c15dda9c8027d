// Hardware counters, analysed per kernel signature: the average of its counter
// sets and what follows from them: the achieved FLOP/s and bytes/s, the arithmetic
// intensity at each memory level, the % of each roof (lib/analysis/ceilings.h), the
// occupancy (lib/analysis/occupancy.h), stalls, memory access quality, speed of
// light and the verdict (lib/analysis/verdict.h).
//
// Pure functions: profile in, findings out. No I/O, no CUPTI, no sentences (the
// reports phrase the findings). The metric names are those of lib/model/metrics.h;
// docs/counters.md explains every rule used here.
#ifndef CUSCOPE_LIB_ANALYSIS_KERNEL_COUNTERS_H_
#define CUSCOPE_LIB_ANALYSIS_KERNEL_COUNTERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/analysis/ceilings.h"
#include "lib/analysis/counter_sizes.h"
#include "lib/analysis/occupancy.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/verdict.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

struct StallShare {
  std::string reason;  // "long_scoreboard", ...
  double percent = 0;  // stalled_<reason>.avg / warps_active.avg x 100
};

// From a kernel record of the signature.
struct LaunchConfig {
  uint32_t registers_per_thread = 0;
  uint32_t shared_bytes_per_block = 0;  // static + dynamic
};

struct AchievedOccupancy {
  double percent = 0;       // sm__warps_active ... pct_of_peak_sustained_active
  double warps_per_sm = 0;  // sm__warps_active.avg.per_cycle_active
};

// Memory access quality.
struct MemoryAccess {
  double shared_ld_conflicts_per_inst = 0, shared_st_conflicts_per_inst = 0;
  double global_ld_sectors_per_request = 0, global_st_sectors_per_request = 0;
};

// Speed of light: SM % and memory % as ncu's SpeedOfLight section, and each unit's
// % of peak over the elapsed cycles (0 when not measured).
struct SpeedOfLight {
  bool has_sm = false, has_memory = false;  // sm_pct, memory_pct measured
  // Which of the units below were measured (a custom metric list may hold a few).
  bool has_dram = false, has_l2 = false, has_l1 = false, has_tensor_pipe = false,
       has_fma_pipe = false, has_fp64_pipe = false, has_issue = false;
  double sm_pct = 0, memory_pct = 0, dram_pct = 0, l2_pct = 0, l1_pct = 0, tensor_pipe_pct = 0,
         fma_pipe_pct = 0, fp64_pipe_pct = 0, issue_pct = 0;
  std::string highest_unit;  // "SM", "DRAM", "L2", "L1", "tensor pipe", "FMA pipe",
                             // "FP64 pipe", "issue"; "" for none
  // SM % (memory %) not measured itself: the busiest of this many measured parts of its
  // breakdown (metrics::SmThroughputParts, MemoryThroughputParts); 0 when measured.
  int sm_parts = 0, memory_parts = 0;
};

// The FLOPs of one precision.
struct PrecisionFlops {
  bool measured = false;  // its counters were measured
  double flops = 0, flops_per_s = 0;
  // % of the precision's roof per elapsed SM cycle (clock-independent); from FLOP/s
  // and the clocked roof when the cycles are unknown. 0 when the roof is unknown.
  double pct_of_peak = 0;
};

// A region measured as a whole: the GPU time of its kernels per instance, from the
// instances that have kernel records, and the FLOP/s while they run. The region's
// duration is its span, gaps between kernels included: the two differ when the GPU
// waits on the CPU.
struct RegionKernels {
  double ns_per_instance = 0;  // > 0
  uint64_t traced_instances = 0;
  double flops_per_s = 0;  // the region's FLOPs / ns_per_instance
  // The dominant precision's FLOP/s while they run, % of its roof (when known).
  std::optional<double> dominant_pct_of_peak;
};

// How far one counter set got against its configuration.
struct SetProgress {
  uint32_t passes = 0;  // the configuration's
  // The passes that ran: rotate takes one launch a pass, so its correlation ids (when
  // it has any); kernel replay runs every pass on its one launch, and a region's set
  // names no launch, so theirs are all the configuration's.
  uint32_t passes_run = 0;
  uint64_t metrics = 0;           // the metrics the set names
  uint64_t metrics_measured = 0;  // of those, with a finite value
  bool complete() const { return passes_run >= passes && metrics_measured >= metrics; }
};
SetProgress ProgressOf(const model::CounterSet& set);

// Counters of one kernel signature (device, name, grid, block): the average over
// its CounterSets, and what follows from them. A value that was not measured is 0;
// a section that was not measured is absent.
struct KernelCounters {
  // --- The signature.
  uint32_t device_id = 0;
  std::string name;
  model::Dim3 grid, block;
  bool region = false;  // a user range measured as a whole (no grid), not a kernel
  std::optional<LaunchConfig> launch_config;  // absent when no kernel record was found

  // --- How it was measured.
  uint64_t sets = 0;                  // CounterSets averaged
  std::vector<uint32_t> set_indices;  // those sets, as indices into profile.counters
  uint64_t measured_launches = 0;     // correlation ids over those sets
  uint32_t max_passes = 0;
  std::vector<model::CounterStrategy> strategies;  // each strategy seen, first-seen order
  std::string StrategyNames() const;               // "rotate", "rotate+kernel replay", ...
  // The signature's measurement is complete when one of its sets is; else it is
  // partial and its verdict unknown (VerdictInputs::partial). The best set's progress:
  // a complete one, else the one with the most passes run, then metrics measured.
  SetProgress progress;
  bool complete() const { return progress.complete(); }

  // --- Kernel time of the signature, from the profile's kernel records.
  uint64_t launches = 0;  // kernel records of the signature
  // Its kernel time (its timed launches, analysis::KernelTimeMask), the ranking key; for
  // a signature without kernel records, an estimate: the measured duration x sets.
  uint64_t total_time_ns = 0;
  bool time_estimated = false;  // total_time_ns is the estimate
  // total_time_ns as % of the profile's kernel time (Summary::kernel_ns), the kernels
  // table's Time %; an estimated one is not part of that kernel time.
  double time_percent = 0;

  // Every metric, averaged over the sets that have it, sorted by name.
  std::vector<std::pair<std::string, double>> values;

  // --- Roofline.
  double duration_ns = 0;  // gpu__time_duration.sum
  // SM cycles elapsed (sm__cycles_elapsed.max, else the SM clock x duration) and the
  // kernel's own SM clock, cycles / duration (0 when unknown).
  double elapsed_cycles = 0, sm_clock_hz = 0;
  // FLOPs by precision (index: static_cast<size_t>(Precision)).
  PrecisionFlops by_precision[kPrecisionCount];
  const PrecisionFlops& flops_of(Precision p) const { return by_precision[static_cast<size_t>(p)]; }
  // CUDA-core FLOPs by precision, tensor FLOPs (every tensor precision), the total.
  double fp64_flops = 0, fp32_flops = 0, fp16_flops = 0, tensor_flops = 0;
  double total_flops = 0;
  double dram_bytes = 0, l2_bytes = 0, l1_bytes = 0;
  double fp64_flops_per_s = 0, fp32_flops_per_s = 0, fp16_flops_per_s = 0, tensor_flops_per_s = 0,
         total_flops_per_s = 0;
  double dram_bytes_per_s = 0, l2_bytes_per_s = 0, l1_bytes_per_s = 0;
  // FLOPs per byte at each level; +infinity when no bytes moved there (printed "-").
  double ai_dram = 0, ai_l2 = 0, ai_l1 = 0;
  // % of each CUDA-core roof, and the highest % of any tensor precision's roof.
  double pct_fp64 = 0, pct_fp32 = 0, pct_fp16 = 0, pct_tensor = 0;
  // Utilisation of each unit, absent when not measured. Compute: the max % of roof
  // over the precisions. Memory levels: the unit's throughput % over elapsed cycles
  // (ncu's breakdown) when present, else the earlier pct_of_peak metrics, else
  // achieved / ceiling x 100.
  std::optional<double> pct_compute, pct_dram, pct_l2, pct_l1;
  Precision dominant = Precision::kFp32;  // the precision with the highest % of its roof
  // Peak FLOP/s of the dominant precision / each bandwidth (FLOP/byte; 0 when unknown).
  double ridge_dram = 0, ridge_l2 = 0, ridge_l1 = 0;

  // --- Occupancy.
  // Blocks in one wave: SMs x theoretical blocks per SM (SMs alone when the launch
  // configuration is unknown); 0 for regions.
  uint64_t wave_blocks = 0;
  Occupancy theoretical;  // valid when the launch configuration is known and fits
  std::optional<AchievedOccupancy> achieved_occupancy;

  // --- Verdict, and for regions their kernels' time (absent when no instance has
  // kernel records).
  Verdict verdict;
  // A verdict per launch size when the measured launches span several sizes
  // (counter_sizes.h), in ascending duration; empty otherwise. `verdict` stays that of
  // all the sets averaged.
  std::vector<LaunchSize> sizes;
  std::optional<RegionKernels> region_kernels;

  // --- Optional sections, present when their metrics were measured.
  std::vector<StallShare> stalls;  // ranked, descending; empty when not measured
  std::optional<MemoryAccess> memory;
  std::optional<SpeedOfLight> sol;

  // The averaged value of a metric, or `fallback` when it was not measured.
  double value(const std::string& metric, double fallback = 0) const;
  bool has(const std::string& metric) const;
};

// One KernelCounters per signature, ranked by the signature's kernel time, descending
// (ties by name): that of its timed launches (analysis::KernelTimeMask, the kernels
// table's rule), so that a kernel of one signature has the same Time % in both tables.
// Regions and signatures without kernel records use the measured duration x sets.
std::vector<KernelCounters> AnalyzeCounters(const model::Profile& profile);
// The same with the profile's ceilings (ComputeAllCeilings) and, when not null, its
// region rows (SummarizeRegions) already at hand.
std::vector<KernelCounters> AnalyzeCounters(const model::Profile& profile,
                                            const std::vector<Ceilings>& ceilings,
                                            const std::vector<RegionSummaryRow>* region_rows);

// What is missing and why: "name: value" for each run note of the "counters" group
// (model::NotesOfGroup), e.g. "status: not permitted: ERR_NVGPUCTRPERM ...",
// then a note for each device whose counters give no ceilings.
std::vector<std::string> CounterNotes(const model::Profile& profile);
std::vector<std::string> CounterNotes(const model::Profile& profile,
                                      const std::vector<Ceilings>& ceilings);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_KERNEL_COUNTERS_H_
