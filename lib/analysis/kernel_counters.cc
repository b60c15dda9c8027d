#include "lib/analysis/kernel_counters.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace cuscope::analysis {

std::string KernelCounters::StrategyNames() const {
  std::vector<std::string> names;
  for (model::CounterStrategy s : strategies) names.push_back(model::CounterStrategyName(s));
  return absl::StrJoin(names, "+");
}

SetProgress ProgressOf(const model::CounterSet& set) {
  SetProgress p;
  p.passes = set.passes;
  const uint64_t launches = set.correlation_ids.size();
  p.passes_run = set.strategy == model::CounterStrategy::kRotate && launches > 0
                     ? static_cast<uint32_t>(std::min<uint64_t>(launches, set.passes))
                     : set.passes;
  p.metrics = set.values.size();
  for (const auto& [id, v] : set.values) p.metrics_measured += std::isfinite(v) ? 1 : 0;
  return p;
}

double KernelCounters::value(const std::string& metric, double fallback) const {
  auto it = std::lower_bound(
      values.begin(), values.end(), metric,
      [](const std::pair<std::string, double>& a, const std::string& b) { return a.first < b; });
  return it != values.end() && it->first == metric ? it->second : fallback;
}

bool KernelCounters::has(const std::string& metric) const {
  auto it = std::lower_bound(
      values.begin(), values.end(), metric,
      [](const std::pair<std::string, double>& a, const std::string& b) { return a.first < b; });
  return it != values.end() && it->first == metric;
}

std::vector<std::string> CounterNotes(const model::Profile& profile) {
  return CounterNotes(profile, ComputeAllCeilings(profile));
}

std::vector<std::string> CounterNotes(const model::Profile& profile,
                                      const std::vector<Ceilings>& ceilings) {
  std::vector<std::string> notes;
  for (const auto& [name, value] : model::NotesOfGroup(profile.run.notes, "counters")) {
    notes.push_back(absl::StrCat(name, ": ", value));
  }
  for (const Ceilings& c : ceilings) {
    if (!c.valid) {
      notes.push_back(absl::StrFormat(
          "GPU %d: no peak or clock metrics measured: ceilings unknown, so no %% of roof "
          "from byte and FLOP counts and no roofline chart",
          c.device_id));
    }
  }
  return notes;
}

}  // namespace cuscope::analysis
