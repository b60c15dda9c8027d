// The verdict on a kernel signature: which unit limits it (compute, DRAM, L2, L1)
// or, when every unit is far from its peak, latency; like ncu's Speed of Light
// breakdown. Structured evidence only: the sentence that states it is written in
// lib/report/verdict_text.h. Pure functions, no I/O.
#ifndef CUSCOPE_LIB_ANALYSIS_VERDICT_H_
#define CUSCOPE_LIB_ANALYSIS_VERDICT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "lib/analysis/ceilings.h"

namespace cuscope::analysis {

// Utilisation (% of peak) at or above which a unit is a kernel's limiter.
inline constexpr double kBoundThresholdPercent = 60.0;
// Compute names the verdict when its % of peak is within this many points of the
// busiest memory level (and above the threshold).
inline constexpr double kComputeTiePoints = 5.0;

// What limits a kernel.
enum class Bound : uint8_t {
  kCompute = 0,
  kDram,
  kL2,
  kL1,
  kLatency,
  kUnknown,
};
// "compute-bound", "DRAM-bound", "L2-bound", "L1-bound", "latency-bound", "unknown".
const char* VerdictName(Bound b);

// The units whose utilisation the verdict weighs, in the order it considers them.
enum class Unit : uint8_t { kCompute = 0, kDram, kL2, kL1 };

struct UnitUse {
  Unit unit = Unit::kCompute;
  double percent = 0;  // % of the unit's peak
};

// What the verdict is computed from.
struct VerdictInputs {
  // Utilisation of each unit, % of its peak; absent when not measured.
  std::optional<double> compute, dram, l2, l1;
  Precision precision = Precision::kFp32;  // the precision the compute % is of
  bool counters_measured = false;          // a duration or some metric was measured
  uint64_t grid_blocks = 0;
  uint64_t wave_blocks = 0;  // blocks in one wave; 0 when unknown (regions)
  // FLOPs per DRAM byte, when DRAM bytes and FLOPs were measured (+infinity when no
  // byte moved); the ridge point of `precision` at DRAM (0 when unknown).
  std::optional<double> ai_dram;
  double ridge_dram = 0;
};

struct Verdict {
  Bound bound = Bound::kUnknown;
  // The units with a known utilisation, by % of peak descending (ties in Unit
  // order). The limiter is the first, except that compute takes the place of a
  // memory level within kComputeTiePoints above it (a Hopper GEMM keeps the L1 data
  // pipe as busy as its tensor cores).
  std::vector<UnitUse> units;
  Precision precision = Precision::kFp32;
  bool counters_measured = false;
  // Latency-bound and the grid has fewer blocks than one wave: too little parallelism.
  bool small_grid = false;
  uint64_t grid_blocks = 0;
  uint64_t wave_blocks = 0;
  std::optional<double> ai_dram;
  double ridge_dram = 0;
};

// Unknown without any utilisation; latency-bound when every unit is under
// kBoundThresholdPercent; else bound by the busiest unit (see Verdict::units).
Verdict ComputeVerdict(const VerdictInputs& in);

// The unit a bound names (Unit::kCompute for kLatency and kUnknown, which name none).
Unit UnitOf(Bound b);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_VERDICT_H_
