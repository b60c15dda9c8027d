#include "lib/report/verdict_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/model/checked.h"
#include "lib/report/number_format.h"

namespace cuscope::report {
namespace {

using analysis::Bound;
using analysis::Unit;
using analysis::UnitUse;

// "BF16" for the BF16 tensor precision.
std::string TensorLabel(const analysis::Verdict& v) {
  if (!v.tensor_precision) return "tensor pipe";
  std::string name = analysis::PrecisionName(*v.tensor_precision);
  const std::string suffix = " tensor";
  if (name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    name.resize(name.size() - suffix.size());
  }
  return absl::StrCat("tensor pipe (", name, ")");
}

std::string UnitLabel(Unit u, const analysis::Verdict& v) {
  switch (u) {
    case Unit::kCompute:
      return analysis::PrecisionName(v.precision);
    case Unit::kDram:
      return "DRAM";
    case Unit::kL2:
      return "L2";
    case Unit::kL1:
      return "L1";
    case Unit::kTensorPipe:
      return TensorLabel(v);
    case Unit::kFmaPipe:
      return "FMA pipe";
    case Unit::kFp64Pipe:
      return "FP64 pipe";
    case Unit::kIssue:
      return "issue";
    case Unit::kSm:
      return "SM";
    case Unit::kMemory:
      return "memory";
  }
  return "?";
}

std::string UnitAt(const UnitUse& u, const analysis::Verdict& v) {
  return absl::StrCat(UnitLabel(u.unit, v), " at ", FormatPercentOfPeak(u.percent));
}

// The limiter first, then the busiest unit of the other side, then DRAM and every
// other unit at or above the threshold (units are sorted, busiest first).
std::vector<std::string> UnitList(const analysis::Verdict& v) {
  std::vector<std::string> parts;
  const UnitUse* top = v.limiter ? &*v.limiter : nullptr;
  for (const UnitUse& u : v.units) {  // evidence built without a limiter: the bound's unit
    if (top != nullptr) break;
    const bool memory_bound = v.bound != Bound::kCompute;
    if (analysis::IsMemoryUnit(u.unit) == memory_bound &&
        (!memory_bound || u.unit == analysis::UnitOf(v.bound))) {
      top = &u;
    }
  }
  if (top == nullptr) return parts;
  parts.push_back(UnitAt(*top, v));
  const bool top_memory = analysis::IsMemoryUnit(top->unit);
  const UnitUse* other = nullptr;
  for (const UnitUse& u : v.units) {
    if (analysis::IsMemoryUnit(u.unit) != top_memory) {
      other = &u;
      break;
    }
  }
  if (other != nullptr) parts.push_back(UnitAt(*other, v));
  for (const UnitUse& u : v.units) {  // DRAM always, the others close to their peak
    if (u.unit == top->unit || &u == other) continue;
    if (u.unit == Unit::kDram || u.percent >= analysis::kBoundThresholdPercent) {
      parts.push_back(UnitAt(u, v));
    }
  }
  return parts;
}

std::string SolPrefix(const analysis::Verdict& v) {
  // From the verdict set's parts, each side is at least its busiest part.
  const char* at_least = v.sol_from_parts ? ">=" : "";
  std::string s = absl::StrFormat("SM %s%s, memory %s%s", at_least, FormatPercentOfPeak(*v.sm_pct),
                                  at_least, FormatPercentOfPeak(*v.memory_pct));
  if (v.sol_class == analysis::SolClass::kLatency) {
    absl::StrAppend(&s, absl::StrFormat(" (both under %.0f%%)", analysis::kBoundThresholdPercent));
  }
  absl::StrAppend(&s, ": ", analysis::SolClassName(v.sol_class));
  return s;
}

std::string Evidence(const analysis::Verdict& v) {
  std::vector<std::string> parts;
  const analysis::VerdictEvidence& e = v.evidence;
  if (e.top_stall) {
    parts.push_back(
        absl::StrFormat("top stall %s %.0f%%", e.top_stall->first, e.top_stall->second));
  }
  if (e.shared_conflicts_per_inst && *e.shared_conflicts_per_inst >= 0.05) {
    parts.push_back(absl::StrFormat("shared bank conflicts %s/inst",
                                    FormatRatio(*e.shared_conflicts_per_inst)));
  }
  if (v.bound == Bound::kLatency && e.achieved_occupancy_pct) {
    std::string occ = absl::StrFormat("occupancy %.0f%%", *e.achieved_occupancy_pct);
    if (e.theoretical_occupancy_pct) {
      absl::StrAppend(&occ,
                      absl::StrFormat(" of %.0f%% theoretical", *e.theoretical_occupancy_pct));
    }
    parts.push_back(occ);
  }
  return parts.empty() ? "" : absl::StrCat("; ", absl::StrJoin(parts, ", "));
}

std::string SmallGrid(const analysis::Verdict& v) {
  if (!v.small_grid) return "";
  return absl::StrFormat("; grid of %d block%s < one wave of %d (small grid)", v.grid_blocks,
                         v.grid_blocks == 1 ? "" : "s", v.wave_blocks);
}

std::string LatencyReason(const analysis::Verdict& v) {
  std::vector<std::string> parts;
  for (const UnitUse& u : v.units) parts.push_back(UnitAt(u, v));
  std::string reason;
  if (v.sm_pct && v.memory_pct) {
    reason = absl::StrCat(SolPrefix(v), "; ");
    if (!parts.empty()) absl::StrAppend(&reason, "busiest ", parts.front(), ": ");
    absl::StrAppend(&reason, "latency-bound");
  } else {
    reason = absl::StrFormat("every unit under %.0f%% of peak (%s): latency-bound",
                             analysis::kBoundThresholdPercent, absl::StrJoin(parts, ", "));
  }
  return absl::StrCat(reason, SmallGrid(v), Evidence(v));
}

// Unknown because the tensor precisions that could limit were not counted.
std::string UnmeasuredTensorReason(const analysis::Verdict& v) {
  std::vector<std::string> parts;
  for (const UnitUse& u : v.units) parts.push_back(UnitAt(u, v));
  std::vector<std::string> names;
  for (analysis::Precision p : v.unmeasured_tensor) names.push_back(analysis::PrecisionName(p));
  std::string reason;
  if (!parts.empty()) reason = absl::StrCat("busiest measured: ", absl::StrJoin(parts, ", "), "; ");
  absl::StrAppend(&reason, absl::StrJoin(names, ", "),
                  " FLOPs not measured (a tensor-core kernel of those precisions reads as idle): "
                  "verdict unknown");
  return absl::StrCat(reason, Evidence(v));
}

std::string BoundReason(const analysis::Verdict& v) {
  std::string reason;
  if (v.sm_pct && v.memory_pct) reason = absl::StrCat(SolPrefix(v), "; ");
  std::vector<std::string> parts = UnitList(v);
  if (!parts.empty()) {
    parts.front() += " of peak";
    if (v.limiter && (v.limiter->unit == Unit::kSm || v.limiter->unit == Unit::kMemory)) {
      parts.front() += " (its busiest unit not measured)";
    }
    absl::StrAppend(&reason, absl::StrJoin(parts, ", "), ": ");
  }
  absl::StrAppend(&reason, analysis::VerdictName(v.bound));
  if (v.ai_dram) {
    absl::StrAppend(&reason, "; AI ", FormatRatio(*v.ai_dram), " FLOP/B (DRAM)");
    if (v.ridge_dram > 0) absl::StrAppend(&reason, ", ridge ", FormatRatio(v.ridge_dram));
  }
  return absl::StrCat(reason, Evidence(v));
}

// "3 of 7 passes", "33 of 35 metrics", or both, joined by ", ".
std::string PartialDetail(const analysis::SetProgress& p) {
  std::vector<std::string> parts;
  if (p.passes_run < p.passes)
    parts.push_back(absl::StrCat(p.passes_run, " of ", p.passes, " passes"));
  if (p.metrics_measured < p.metrics) {
    parts.push_back(absl::StrCat(p.metrics_measured, " of ", p.metrics, " metrics"));
  }
  return absl::StrJoin(parts, ", ");
}

// "1 launch", "7 launches".
std::string Count(uint64_t n, const char* one, const char* many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
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
      if (v.partial) return "partial measurement: verdict unknown";
      if (!v.unmeasured_tensor.empty() && !v.units.empty()) return UnmeasuredTensorReason(v);
      return v.counters_measured
                 ? "no utilisation measured (neither FLOP/byte counts with ceilings nor "
                   "% of peak metrics): verdict unknown"
                 : "no counters: verdict unknown";
    case Bound::kLatency:
      return LatencyReason(v);
    default:
      break;
  }
  return BoundReason(v);
}

std::string CountersReason(const analysis::KernelCounters& k) {
  if (k.verdict.partial) {
    return absl::StrCat("partial measurement (", PartialDetail(k.progress), "): verdict unknown");
  }
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

std::string MeasurementText(const analysis::KernelCounters& k) {
  const bool one_strategy = k.strategies.size() == 1;
  const model::CounterStrategy only =
      one_strategy ? k.strategies.front() : model::CounterStrategy::kKernelReplay;
  std::string how = k.StrategyNames();
  if (!k.complete()) {
    // The passes are those of the best set, which the detail names.
    return absl::StrCat(
        "partial: ", PartialDetail(k.progress), " (", how, ", ",
        k.region ? Count(k.sets, "set", "sets") : Count(k.measured_launches, "launch", "launches"),
        ")");
  }
  absl::StrAppend(&how, ", ", Count(k.max_passes, "pass", "passes"));
  if (k.region) {
    absl::StrAppend(&how, " over ",
                    Count(model::SaturatingMul(k.sets, k.max_passes), "instance", "instances"));
  } else {
    const bool per_pass = one_strategy && only == model::CounterStrategy::kRotate;
    absl::StrAppend(&how, per_pass ? " over " : ", ",
                    Count(k.measured_launches, "launch", "launches"));
  }
  // Kernel replay measures one launch a sample: the launches count them.
  if (k.sets > 1 && !(one_strategy && only == model::CounterStrategy::kKernelReplay)) {
    absl::StrAppend(&how, " (", k.sets, " samples)");
  }
  return how;
}

std::string CoverageLine(const analysis::VerdictCoverage& c) {
  std::string pct = absl::StrFormat("%.1f", c.percent());
  if (pct == "100.0" && c.covered_ns < c.kernel_ns) pct = ">99.9";
  if (pct == "0.0" && c.covered_ns > 0) pct = "<0.1";
  std::string line = absl::StrCat("verdicts cover ", pct, "% of GPU kernel time (", c.covered,
                                  " of ", c.signatures, " signatures");
  std::vector<std::string> why;
  if (c.not_measured() > 0) why.push_back(absl::StrCat(c.not_measured(), " not measured"));
  if (c.partial > 0) why.push_back(absl::StrCat(c.partial, " partial"));
  if (c.unknown > 0) why.push_back(absl::StrCat(c.unknown, " verdict unknown"));
  if (!why.empty()) absl::StrAppend(&line, "; ", absl::StrJoin(why, ", "));
  return line + ")";
}

}  // namespace cuscope::report
