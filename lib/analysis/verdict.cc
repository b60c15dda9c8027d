#include "lib/analysis/verdict.h"

#include <algorithm>

namespace cuscope::analysis {
namespace {

Bound BoundOf(Unit u) {
  switch (u) {
    case Unit::kCompute: return Bound::kCompute;
    case Unit::kDram: return Bound::kDram;
    case Unit::kL2: return Bound::kL2;
    case Unit::kL1: return Bound::kL1;
  }
  return Bound::kUnknown;
}

}  // namespace

const char* VerdictName(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute-bound";
    case Bound::kDram: return "DRAM-bound";
    case Bound::kL2: return "L2-bound";
    case Bound::kL1: return "L1-bound";
    case Bound::kLatency: return "latency-bound";
    case Bound::kUnknown: break;
  }
  return "unknown";
}

Unit UnitOf(Bound b) {
  switch (b) {
    case Bound::kDram: return Unit::kDram;
    case Bound::kL2: return Unit::kL2;
    case Bound::kL1: return Unit::kL1;
    default: break;
  }
  return Unit::kCompute;
}

Verdict ComputeVerdict(const VerdictInputs& in) {
  Verdict v;
  v.precision = in.precision;
  v.counters_measured = in.counters_measured;
  v.grid_blocks = in.grid_blocks;
  v.wave_blocks = in.wave_blocks;
  v.ai_dram = in.ai_dram;
  v.ridge_dram = in.ridge_dram;
  if (in.compute) v.units.push_back({Unit::kCompute, *in.compute});
  if (in.dram) v.units.push_back({Unit::kDram, *in.dram});
  if (in.l2) v.units.push_back({Unit::kL2, *in.l2});
  if (in.l1) v.units.push_back({Unit::kL1, *in.l1});
  if (v.units.empty()) return v;  // unknown
  std::stable_sort(v.units.begin(), v.units.end(),
                   [](const UnitUse& a, const UnitUse& b) { return a.percent > b.percent; });
  const UnitUse& top = v.units.front();
  if (top.percent < kBoundThresholdPercent) {
    v.bound = Bound::kLatency;
    v.small_grid = v.wave_blocks > 0 && v.grid_blocks < v.wave_blocks;
    return v;
  }
  v.bound = BoundOf(top.unit);
  // A kernel whose compute roof is nearly as busy as its busiest memory level runs
  // at its compute ceiling: a Hopper wgmma GEMM keeps the L1 data pipe (shared
  // memory operands) as busy as the tensor cores, and only less math makes it
  // faster. Within kComputeTiePoints of the top, compute names the verdict.
  for (const UnitUse& u : v.units) {
    if (u.unit == Unit::kCompute && &u != &top && u.percent >= kBoundThresholdPercent &&
        top.percent - u.percent <= kComputeTiePoints) {
      v.bound = Bound::kCompute;
    }
  }
  return v;
}

}  // namespace cuscope::analysis
