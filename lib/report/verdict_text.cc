#include "lib/report/verdict_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/report/number_format.h"

namespace cuscope::report {
namespace {

using analysis::Bound;
using analysis::Unit;
using analysis::UnitUse;

const char* UnitLabel(Unit u, analysis::Precision precision) {
  switch (u) {
    case Unit::kCompute: return analysis::PrecisionName(precision);
    case Unit::kDram: return "DRAM";
    case Unit::kL2: return "L2";
    case Unit::kL1: return "L1";
  }
  return "?";
}

std::string UnitAt(const UnitUse& u, analysis::Precision precision) {
  return absl::StrCat(UnitLabel(u.unit, precision), " at ", FormatPercentOfPeak(u.percent));
}

std::string LatencyReason(const analysis::Verdict& v) {
  std::vector<std::string> parts;
  for (const UnitUse& u : v.units) parts.push_back(UnitAt(u, v.precision));
  std::string reason = absl::StrFormat("every unit under %.0f%% of peak (%s): latency-bound",
                                       analysis::kBoundThresholdPercent, absl::StrJoin(parts, ", "));
  if (v.small_grid) {
    absl::StrAppend(&reason, absl::StrFormat("; grid of %d block%s < one wave of %d (small grid)",
                                             v.grid_blocks, v.grid_blocks == 1 ? "" : "s",
                                             v.wave_blocks));
  }
  return reason;
}

std::string BoundReason(const analysis::Verdict& v) {
  const Unit limiter = analysis::UnitOf(v.bound);
  const UnitUse* top = nullptr;
  for (const UnitUse& u : v.units) {
    if (u.unit == limiter) top = &u;
  }
  if (top == nullptr) return VerdictName(v.bound);  // not from ComputeVerdict
  // The others in unit order: compute, DRAM, and each level close to its peak.
  std::vector<std::string> others;
  for (Unit unit : {Unit::kCompute, Unit::kDram, Unit::kL2, Unit::kL1}) {
    for (const UnitUse& u : v.units) {
      if (u.unit != unit || &u == top) continue;
      if (unit == Unit::kCompute || unit == Unit::kDram ||
          u.percent >= analysis::kBoundThresholdPercent) {
        others.push_back(UnitAt(u, v.precision));
      }
    }
  }
  std::string reason = absl::StrCat(UnitAt(*top, v.precision), " of peak");
  if (!others.empty()) absl::StrAppend(&reason, ", ", absl::StrJoin(others, ", "));
  absl::StrAppend(&reason, ": ", analysis::VerdictName(v.bound));
  if (v.ai_dram) {
    absl::StrAppend(&reason, "; AI ", FormatRatio(*v.ai_dram), " FLOP/B (DRAM)");
    if (v.ridge_dram > 0) absl::StrAppend(&reason, ", ridge ", FormatRatio(v.ridge_dram));
  }
  return reason;
}

}  // namespace

std::string VerdictLabel(const analysis::Verdict& v) {
  return v.small_grid && v.bound == Bound::kLatency
             ? absl::StrCat(analysis::VerdictName(v.bound), " (small grid)")
             : std::string(analysis::VerdictName(v.bound));
}

std::string VerdictReason(const analysis::Verdict& v) {
  switch (v.bound) {
    case Bound::kUnknown:
      return v.counters_measured
                 ? "no utilisation measured (neither FLOP/byte counts with ceilings nor "
                   "% of peak metrics): verdict unknown"
                 : "no counters: verdict unknown";
    case Bound::kLatency: return LatencyReason(v);
    default: break;
  }
  return BoundReason(v);
}

std::string CountersReason(const analysis::KernelCounters& k) {
  std::string reason = VerdictReason(k.verdict);
  if (!k.region_kernels) return reason;
  const analysis::RegionKernels& r = *k.region_kernels;
  absl::StrAppend(&reason,
                  absl::StrFormat("; its kernels run %s of GPU time per instance (%d traced)",
                                  FormatNsShort(r.ns_per_instance), r.traced_instances));
  if (k.total_flops > 0) {
    absl::StrAppend(&reason, ": ", FormatRate(r.flops_per_s, "FLOP/s"), " while they run");
    if (r.dominant_pct_of_peak) {
      absl::StrAppend(&reason,
                      absl::StrFormat(" (%s at %s%% of peak)", analysis::PrecisionName(k.dominant),
                                      FormatRatio(*r.dominant_pct_of_peak)));
    }
  }
  return reason;
}

}  // namespace cuscope::report
