#include "lib/analysis/counter_outcome.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "lib/analysis/kernel_groups.h"
#include "lib/analysis/steps.h"
#include "lib/model/run_notes.h"

namespace cuscope::analysis {
namespace {

// The value of setting `name`, "" when the profile does not record it.
std::string SettingOf(const model::RunNotes& notes, const char* name) {
  for (const auto& [n, value] : notes.settings) {
    if (n == name) return value;
  }
  return "";
}

// A yes/no setting as its parser reads it (lib/config/values.cc): "1", "true", "yes", ...
bool IsYes(const std::string& text) {
  const std::string s = absl::AsciiStrToLower(text);
  return s == "1" || s == "true" || s == "yes" || s == "on" || s == "t" || s == "y";
}

uint64_t UintOf(const std::string& text) {
  uint64_t n = 0;
  return absl::SimpleAtoi(text, &n) ? n : 0;
}

// "left the period 2" from "... 2 dropped (left the period 2), ..." (Planner::Describe),
// "" when the summary does not say.
std::string DropReasons(const std::string& summary) {
  const std::string marker = " dropped (";
  const size_t at = summary.find(marker);
  if (at == std::string::npos) return "";
  const size_t begin = at + marker.size();
  const size_t end = summary.find(')', begin);
  return end == std::string::npos ? "" : summary.substr(begin, end - begin);
}

// (device, name, grid, block) of the signatures measured.
using Signature =
    std::tuple<uint32_t, std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;

// The signatures measured.
std::set<Signature> MeasuredSignatures(const std::vector<KernelCounters>& counters) {
  std::set<Signature> measured;
  for (const KernelCounters& k : counters) {
    if (!k.region) {
      measured.insert(
          {k.device_id, k.name, k.grid.x, k.grid.y, k.grid.z, k.block.x, k.block.y, k.block.z});
    }
  }
  return measured;
}

// Kernel signatures not in `measured` every launch of which has `all(k)` true.
template <typename Pred>
uint64_t UnmeasuredWhereAll(const model::Profile& p, const std::set<Signature>& measured,
                            const Pred& all) {
  absl::flat_hash_map<KernelKey, bool> every;  // by signature: every launch so far
  for (const model::KernelRecord& k : p.kernels) {
    const KernelKey key{k.device_id, k.name,    k.mangled_name, k.grid.x, k.grid.y,
                        k.grid.z,    k.block.x, k.block.y,      k.block.z};
    auto [it, inserted] = every.try_emplace(key, true);
    it->second = it->second && all(k);
  }
  uint64_t n = 0;
  for (const auto& [key, yes] : every) {
    if (!yes) continue;
    const auto& [device, name, mangled, gx, gy, gz, bx, by, bz] = key;
    const bool found = measured.count({device, p.str(name), gx, gy, gz, bx, by, bz}) > 0 ||
                       measured.count({device, p.str(mangled), gx, gy, gz, bx, by, bz}) > 0;
    if (!found) ++n;
  }
  return n;
}

bool Asked(const model::Profile& p, const CounterOutcome& o) {
  if (o.settings_recorded) return !o.metrics.empty();
  return !p.counters.empty() || !model::NotesOfGroup(p.run.notes, "counters").empty();
}

// Why signatures were left without counters (the outcome's measured < signatures).
void WhyNotMeasured(const model::Profile& p, const std::vector<KernelCounters>& counters,
                    const Steps& steps, CounterOutcome& o) {
  const model::RunNotes& n = p.run.notes;
  const bool rotate = o.strategy == "rotate";
  const std::string per_signature = SettingOf(n, "per_signature");
  if (rotate && !steps.empty() && n.counters_passes && *n.counters_passes > 0) {
    const uint64_t passes = static_cast<uint64_t>(*n.counters_passes);
    const uint64_t needs = RotateStepsNeeded(passes, per_signature != "all");
    if (steps.count() < needs) {
      o.shortfalls.push_back({ShortfallKind::kLoopTooShort, steps.count(), needs, passes, ""});
    }
  }
  const std::set<Signature> measured = MeasuredSignatures(counters);
  if ((rotate || o.strategy == "sweep") && !steps.empty()) {
    const uint64_t loop_ns = steps.first_start_ns();
    const uint64_t k = UnmeasuredWhereAll(
        p, measured, [loop_ns](const model::KernelRecord& r) { return r.start_ns < loop_ns; });
    if (k > 0) {
      o.shortfalls.push_back({ShortfallKind::kStartupOnly, k, 0, 0, ""});
    }
  }
  if (uint64_t k = UnmeasuredWhereAll(p, measured,
                                      [](const model::KernelRecord& r) { return r.graph_id != 0; });
      k > 0) {
    o.shortfalls.push_back({ShortfallKind::kGraphOnly, k, 0, 0, ""});
  }
  if (n.counters_samples_dropped && *n.counters_samples_dropped > 0) {
    o.shortfalls.push_back({ShortfallKind::kSetsDropped,
                            static_cast<uint64_t>(*n.counters_samples_dropped), 0, 0,
                            DropReasons(n.counters_summary)});
  }
  if (std::string k = SettingOf(n, "kernels"); !k.empty()) {
    o.shortfalls.push_back({ShortfallKind::kKernelsFilter, 0, 0, 0, k});
  }
  if (std::string r = SettingOf(n, "regions"); !r.empty() && !o.regions) {
    o.shortfalls.push_back({ShortfallKind::kRegionsFilter, 0, 0, 0, r});
  }
  const uint64_t limit = UintOf(SettingOf(n, "launch_count"));
  if (limit > 0 && n.counters_launches_measured &&
      static_cast<uint64_t>(*n.counters_launches_measured) >= limit) {
    o.shortfalls.push_back({ShortfallKind::kLaunchCount, limit, 0, 0, ""});
  }
  if (n.counters_nccl_launches && *n.counters_nccl_launches > 0) {
    o.shortfalls.push_back(
        {ShortfallKind::kNccl, static_cast<uint64_t>(*n.counters_nccl_launches), 0, 0, ""});
  }
  if (n.counters_captured_launches && *n.counters_captured_launches > 0) {
    o.shortfalls.push_back(
        {ShortfallKind::kCaptured, static_cast<uint64_t>(*n.counters_captured_launches), 0, 0, ""});
  }
  if (!n.counters_budget_idle.empty()) {
    o.shortfalls.push_back({ShortfallKind::kBudget, 0, 0, 0, n.counters_budget_idle});
  }
  if (!n.counters_backoff.empty()) {
    o.shortfalls.push_back({ShortfallKind::kBackoff, 0, 0, 0, n.counters_backoff});
  }
}

}  // namespace

uint64_t RotateStepsNeeded(uint64_t passes, bool bounded_samples) {
  return passes + (bounded_samples ? std::max<uint64_t>(2, passes) : 2);
}

CounterOutcome OutcomeOf(const model::Profile& p, const std::vector<KernelCounters>& counters,
                         const VerdictCoverage& coverage) {
  CounterOutcome o;
  const model::RunNotes& n = p.run.notes;
  o.settings_recorded = !n.settings.empty();
  o.metrics = SettingOf(n, "metrics");
  o.replay = SettingOf(n, "replay");
  o.strategy = n.counters_strategy;
  o.asked = Asked(p, o);
  if (!o.asked) return o;
  o.regions = o.strategy.rfind("region", 0) == 0 || IsYes(SettingOf(n, "region_counters"));
  if (o.regions) {
    for (const KernelCounters& k : counters) o.measured += k.region ? 1 : 0;
    o.signatures = o.measured;
  } else {
    o.measured = coverage.measured;
    o.signatures = coverage.signatures;
  }
  const Steps steps = StepsOf(p);
  o.steps = steps.count();
  if (!n.counters_status.empty()) {
    o.shortfalls.push_back({ShortfallKind::kStatus, 0, 0, 0, n.counters_status});
  }
  if (!n.counters_dropped.empty()) {
    o.shortfalls.push_back({ShortfallKind::kMetricsDropped, 0, 0, 0, n.counters_dropped});
  }
  if (o.measured >= o.signatures) return o;
  const size_t before = o.shortfalls.size();
  WhyNotMeasured(p, counters, steps, o);
  if (o.shortfalls.size() == before && before == 0) {
    o.shortfalls.push_back({ShortfallKind::kUnexplained, o.signatures - o.measured, 0, 0, ""});
  }
  return o;
}

}  // namespace cuscope::analysis
