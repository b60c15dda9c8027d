#include "lib/analysis/verdict.h"

#include <algorithm>
#include <cmath>

namespace cuscope::analysis {
namespace {

Bound BoundOf(Unit u) {
  switch (u) {
    case Unit::kDram:
      return Bound::kDram;
    case Unit::kL2:
      return Bound::kL2;
    case Unit::kL1:
      return Bound::kL1;
    default:
      break;
  }
  return Bound::kCompute;
}

// How far a memory unit is from the SM: DRAM traffic passes through L2 and L1, so
// of equally busy levels the farthest one is the limiter.
int Distance(Unit u) {
  switch (u) {
    case Unit::kDram:
      return 3;
    case Unit::kL2:
      return 2;
    case Unit::kL1:
      return 1;
    default:
      return 0;
  }
}

// The busiest unit of one side (v.units is sorted), or null. Memory levels within
// kTiePoints of the busiest are a tie, given to the farthest level: a streaming
// kernel reads DRAM 88.9% and L2 88.7% in one run and the reverse in the next, and
// its verdict must not flip between them.
const UnitUse* Busiest(const std::vector<UnitUse>& units, bool memory) {
  const UnitUse* best = nullptr;
  for (const UnitUse& u : units) {
    if (IsMemoryUnit(u.unit) != memory) continue;
    if (best == nullptr) {
      best = &u;
      if (!memory) return best;
    } else if (best->percent - u.percent <= kTiePoints && Distance(u.unit) > Distance(best->unit)) {
      best = &u;
    }
  }
  return best;
}

// The limiter `u`; with SM % and memory %, their own side's figure instead when `u`
// is absent or more than kBalancedPoints under it.
void Limit(Verdict& v, const UnitUse* u) {
  if (v.sm_pct && v.memory_pct) {
    const bool memory = u != nullptr ? IsMemoryUnit(u->unit) : v.sol_class == SolClass::kMemory;
    const double side = memory ? *v.memory_pct : *v.sm_pct;
    if (u == nullptr || u->percent < side - kBalancedPoints) {
      v.limiter = UnitUse{memory ? Unit::kMemory : Unit::kSm, side};
      v.bound = memory ? Bound::kMemory : Bound::kCompute;
      return;
    }
  }
  if (u == nullptr) {
    v.bound = Bound::kUnknown;
    return;
  }
  v.limiter = *u;
  v.bound = BoundOf(u->unit);
}

// Compute's busiest unit when at least at the threshold and within kBalancedPoints
// of memory's busiest; else the busiest unit of all.
const UnitUse* BalancedLimiter(const std::vector<UnitUse>& units) {
  const UnitUse* compute = Busiest(units, false);
  const UnitUse* memory = Busiest(units, true);
  if (compute != nullptr && compute->percent >= kBoundThresholdPercent &&
      (memory == nullptr || memory->percent - compute->percent < kBalancedPoints)) {
    return compute;
  }
  return units.empty() ? nullptr : &units.front();
}

}  // namespace

const char* SolClassName(SolClass c) {
  switch (c) {
    case SolClass::kLatency:
      return "latency";
    case SolClass::kCompute:
      return "compute";
    case SolClass::kMemory:
      return "memory";
    case SolClass::kBalanced:
      return "balanced";
    case SolClass::kUnknown:
      break;
  }
  return "unknown";
}

SolClass ClassifySol(double sm, double mem, bool* high_throughput) {
  const bool high = sm >= kHighThroughputPercent || mem >= kHighThroughputPercent;
  if (high_throughput != nullptr) *high_throughput = high;
  if (!high && sm < kBoundThresholdPercent && mem < kBoundThresholdPercent) {
    return SolClass::kLatency;
  }
  if (std::fabs(sm - mem) >= kBalancedPoints)
    return sm > mem ? SolClass::kCompute : SolClass::kMemory;
  return SolClass::kBalanced;
}

const char* VerdictName(Bound b) {
  switch (b) {
    case Bound::kCompute:
      return "compute-bound";
    case Bound::kDram:
      return "DRAM-bound";
    case Bound::kL2:
      return "L2-bound";
    case Bound::kL1:
      return "L1-bound";
    case Bound::kLatency:
      return "latency-bound";
    case Bound::kMemory:
      return "memory-bound";
    case Bound::kUnknown:
      break;
  }
  return "unknown";
}

bool IsMemoryUnit(Unit u) {
  return u == Unit::kDram || u == Unit::kL2 || u == Unit::kL1 || u == Unit::kMemory;
}

Unit UnitOf(Bound b) {
  switch (b) {
    case Bound::kDram:
      return Unit::kDram;
    case Bound::kL2:
      return Unit::kL2;
    case Bound::kL1:
      return Unit::kL1;
    default:
      break;
  }
  return Unit::kCompute;
}

Verdict ComputeVerdict(const VerdictInputs& in) {
  Verdict v;
  v.precision = in.precision;
  v.tensor_precision = in.tensor_precision;
  v.counters_measured = in.counters_measured;
  v.grid_blocks = in.grid_blocks;
  v.wave_blocks = in.wave_blocks;
  v.ai_dram = in.ai_dram;
  v.ridge_dram = in.ridge_dram;
  v.evidence = in.evidence;
  v.sm_pct = in.sm_pct;
  v.sol_from_parts = in.sol_from_parts;
  v.memory_pct = in.memory_pct;
  v.units = in.units;
  v.unmeasured_tensor = in.unmeasured_tensor;
  std::stable_sort(v.units.begin(), v.units.end(), [](const UnitUse& a, const UnitUse& b) {
    if (a.percent != b.percent) return a.percent > b.percent;
    return static_cast<int>(a.unit) < static_cast<int>(b.unit);
  });
  v.partial = in.partial;
  if (v.partial) return v;  // unknown: the missing passes or metrics may hold the limiter
  const bool sol = in.sm_pct && in.memory_pct;
  if (sol) {
    v.sol_class = ClassifySol(*in.sm_pct, *in.memory_pct, &v.high_throughput);
  } else if (v.units.empty()) {
    return v;  // unknown
  } else {
    v.sol_class =
        v.units.front().percent < kBoundThresholdPercent ? SolClass::kLatency : SolClass::kBalanced;
  }
  switch (v.sol_class) {
    case SolClass::kLatency:
      v.bound = Bound::kLatency;
      v.small_grid = v.wave_blocks > 0 && v.grid_blocks < v.wave_blocks;
      break;
    case SolClass::kCompute:
      Limit(v, Busiest(v.units, false));
      break;
    case SolClass::kMemory:
      Limit(v, Busiest(v.units, true));
      break;
    case SolClass::kBalanced:
      Limit(v, BalancedLimiter(v.units));
      break;
    case SolClass::kUnknown:
      break;
  }
  if (!sol) {
    v.sol_class = SolClass::kUnknown;
    // Tensor precisions not counted: "every unit idle" and "L1 busy, no arithmetic"
    // both describe a tensor-core GEMM of such a precision (a Hopper GEMM keeps the L1
    // data pipe as busy as its tensor cores). A grid under one wave stays latency-bound.
    double measured_compute = 0;
    for (const UnitUse& u : v.units) {
      if (u.unit == Unit::kCompute) measured_compute = std::max(measured_compute, u.percent);
    }
    const bool hidden = (v.bound == Bound::kLatency && !v.small_grid) ||
                        (v.bound == Bound::kL1 && measured_compute < kIdleComputePercent);
    if (!v.unmeasured_tensor.empty() && hidden) {
      v.bound = Bound::kUnknown;
      v.limiter.reset();
    }
  }
  return v;
}

}  // namespace cuscope::analysis
