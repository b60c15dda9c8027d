#include "lib/analysis/sampled_verdict.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace cuscope::analysis {
namespace {

void Use(std::vector<UnitUse>& units, Unit unit, const std::optional<double>& pct) {
  if (pct && std::isfinite(*pct)) units.push_back({unit, *pct});
}

std::optional<double> Busiest(const std::vector<UnitUse>& units, bool memory) {
  std::optional<double> best;
  for (const UnitUse& u : units) {
    if (IsMemoryUnit(u.unit) != memory) continue;
    best = std::max(best.value_or(u.percent), u.percent);
  }
  return best;
}

}  // namespace

std::optional<Verdict> SampledVerdict(const SampledParts& rates, const Ceilings* ceilings) {
  if (rates.samples < kMinSampledVerdictSamples) return std::nullopt;
  VerdictInputs in;
  Use(in.units, Unit::kIssue, rates.issue_pct);
  Use(in.units, Unit::kTensorPipe, rates.tensor_pct);
  Use(in.units, Unit::kDram, rates.dram_pct);
  if (ceilings != nullptr && ceilings->peak_l2_bytes_per_s > 0 && rates.l2_bytes_per_s) {
    Use(in.units, Unit::kL2, 100.0 * *rates.l2_bytes_per_s / ceilings->peak_l2_bytes_per_s);
  }
  in.sm_pct = Busiest(in.units, /*memory=*/false);
  in.memory_pct = Busiest(in.units, /*memory=*/true);
  if (!in.sm_pct || !in.memory_pct) return std::nullopt;
  in.sol_from_parts = true;
  in.counters_measured = true;
  in.grid_blocks = rates.grid_blocks;
  in.wave_blocks = rates.wave_blocks;
  return ComputeVerdict(in);
}

}  // namespace cuscope::analysis
