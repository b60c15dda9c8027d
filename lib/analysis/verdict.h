// The verdict on a kernel signature, in one hierarchy (docs/counters.md, "Verdict"):
//  1. the speed-of-light class as ncu's SpeedOfLight rule draws it from SM % and
//     memory % (latency, compute, memory or balanced);
//  2. the unit that limits it: the tensor pipe (of the dominant precision), the FMA
//     or FP64 pipe, instruction issue; DRAM, L2 or L1/shared;
//  3. the evidence measured for it: the top stall reason, shared-memory bank
//     conflicts, achieved occupancy, waves and the tail wave.
// Profiles without SM % and memory % (earlier versions) get the unit level alone,
// from FLOPs and bytes against the roofs. Structured evidence only: the sentence is
// written in lib/report/verdict_text.h. Pure functions, no I/O.
#ifndef CUSCOPE_LIB_ANALYSIS_VERDICT_H_
#define CUSCOPE_LIB_ANALYSIS_VERDICT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/analysis/ceilings.h"

namespace cuscope::analysis {

// ncu's SpeedOfLight rule (its SOLBottleneck rule, Nsight Compute 2023-2025): SM %
// and memory % both under 60: latency; either at or above 80: high throughput;
// otherwise (and in high throughput) the side 10 or more points above the other,
// else balanced.
inline constexpr double kBoundThresholdPercent = 60.0;
inline constexpr double kHighThroughputPercent = 80.0;
inline constexpr double kBalancedPoints = 10.0;
// Memory levels this close (points of their peaks) are equally busy: the one farthest
// from the SM (DRAM, then L2, then L1) is named the limiter.
inline constexpr double kTiePoints = 2.0;

enum class SolClass : uint8_t { kLatency = 0, kCompute, kMemory, kBalanced, kUnknown };
const char* SolClassName(SolClass c);  // "latency", "compute", "memory", "balanced", "unknown"

// The class of SM % and memory %; `high_throughput` (not null) is set when either
// is at or above kHighThroughputPercent (ncu's "High Throughput").
SolClass ClassifySol(double sm_pct, double memory_pct, bool* high_throughput);

// What limits a kernel.
enum class Bound : uint8_t { kCompute = 0, kDram, kL2, kL1, kLatency, kUnknown, kMemory };
// "compute-bound", "DRAM-bound", "L2-bound", "L1-bound", "latency-bound", "unknown",
// "memory-bound".
const char* VerdictName(Bound b);

// The units the verdict weighs. kCompute: FLOPs against the dominant precision's
// roof (profiles without pipe metrics).
// kSm and kMemory: SM % and memory % themselves, the limiter when no measured unit
// of that side is within kBalancedPoints of it (its busiest part was not measured).
enum class Unit : uint8_t {
  kCompute = 0,
  kDram,
  kL2,
  kL1,
  kTensorPipe,
  kFmaPipe,
  kFp64Pipe,
  kIssue,
  kSm,
  kMemory,
};
bool IsMemoryUnit(Unit u);

struct UnitUse {
  Unit unit = Unit::kCompute;
  double percent = 0;  // % of the unit's peak over the elapsed cycles
};

// The limiter's evidence, each absent when not measured.
struct VerdictEvidence {
  std::optional<std::pair<std::string, double>> top_stall;  // reason, % of warp-cycles
  std::optional<double> shared_conflicts_per_inst;          // ld and st, the larger
  std::optional<double> achieved_occupancy_pct;
  std::optional<double> theoretical_occupancy_pct;
};

// What the verdict is computed from.
struct VerdictInputs {
  std::optional<double> sm_pct, memory_pct;  // speed of light
  // SM % and memory % are the busiest measured parts of ncu's breakdowns (the verdict
  // set), so at least these values: printed ">=".
  bool sol_from_parts = false;
  std::vector<UnitUse> units;                 // every measured unit, any order
  Precision precision = Precision::kFp32;     // dominant precision (names compute)
  std::optional<Precision> tensor_precision;  // the tensor pipe's precision, when counted
  bool counters_measured = false;             // a duration or some metric was measured
  uint64_t grid_blocks = 0;
  uint64_t wave_blocks = 0;  // blocks in one wave; 0 when unknown (regions)
  // FLOPs per DRAM byte, when DRAM bytes and FLOPs were measured (+infinity when no
  // byte moved); the ridge point of `precision` at DRAM (0 when unknown).
  std::optional<double> ai_dram;
  double ridge_dram = 0;
  VerdictEvidence evidence;
  // Verdicts from FLOPs against roofs (no pipe metrics): the tensor precisions with a
  // roof on this GPU whose FLOPs were not measured (custom metric lists, earlier
  // versions' sets). Their tensor cores may be what limits the kernel.
  std::vector<Precision> unmeasured_tensor;
  // The measurement is partial (no set of the signature ran every pass or has every
  // metric: KernelCounters::complete): the verdict is unknown rather than drawn from
  // what was measured.
  bool partial = false;
};

struct Verdict {
  Bound bound = Bound::kUnknown;
  SolClass sol_class = SolClass::kUnknown;  // kUnknown without SM % and memory %
  bool high_throughput = false;
  std::optional<double> sm_pct, memory_pct;
  bool sol_from_parts = false;  // as in VerdictInputs
  // The limiter (for compute- and memory-level bounds); absent for latency/unknown.
  std::optional<UnitUse> limiter;
  // The measured units, by % descending (ties in Unit order).
  std::vector<UnitUse> units;
  Precision precision = Precision::kFp32;
  std::optional<Precision> tensor_precision;
  bool counters_measured = false;
  // Latency-bound and the grid has fewer blocks than one wave: too little parallelism.
  bool small_grid = false;
  uint64_t grid_blocks = 0;
  uint64_t wave_blocks = 0;
  std::optional<double> ai_dram;
  double ridge_dram = 0;
  VerdictEvidence evidence;
  std::vector<Precision> unmeasured_tensor;  // as in VerdictInputs
  bool partial = false;                      // as in VerdictInputs: unknown
};

// The hierarchy above. With SM % and memory %: latency when the class is; compute
// names the busiest compute unit, memory the busiest memory unit; balanced names
// compute when its busiest unit is at or above kBoundThresholdPercent and within
// kBalancedPoints of the busiest memory unit, else the busiest unit. Without them:
// latency when every unit is under kBoundThresholdPercent, else the busiest unit,
// compute taking its place within kBalancedPoints (a Hopper GEMM keeps the L1 data
// pipe as busy as its tensor cores, and only less math makes it faster). Without
// them and with `unmeasured_tensor`, latency (a grid of a wave or more) and L1 with
// measured FLOPs under kIdleComputePercent of their roof are unknown: that is how a
// tensor-core GEMM whose precision was not counted reads. A partial measurement is
// unknown.
inline constexpr double kIdleComputePercent = 1.0;
Verdict ComputeVerdict(const VerdictInputs& in);

// The unit a bound names (Unit::kCompute for kLatency, kUnknown and kMemory).
Unit UnitOf(Bound b);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_VERDICT_H_
