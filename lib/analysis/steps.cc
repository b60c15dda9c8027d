#include "lib/analysis/steps.h"

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"

namespace cuscope::analysis {

bool IsStepName(const std::string& name) {
  const std::string n = absl::AsciiStrToLower(name);
  if (n == "step" || n == "train_step" || n == "training_step") return true;
  if (absl::StartsWith(n, "profilerstep#")) return true;
  return absl::StartsWith(n, "step") && n.size() > 4 && !absl::ascii_isalpha(n[4]);
}

namespace {

// The name of the steps an instance belongs to: a numbered one ("ProfilerStep#3",
// "step 3", "step_3") by its name without the number, and "N" in its place.
std::string StepsName(const std::string& name) {
  if (absl::StartsWithIgnoreCase(name, "profilerstep#")) return "ProfilerStep#N";
  size_t end = name.size();
  while (end > 4 && absl::ascii_isdigit(name[end - 1])) --end;
  return end == name.size() ? name : name.substr(0, end) + "N";
}

}  // namespace

Steps StepsOf(const model::Profile& p) {
  std::map<std::string, std::vector<const model::RangeRecord*>> by_name;
  for (const model::RangeRecord& r : p.ranges) {
    if (r.end_ns <= r.start_ns) continue;  // marks and unusable times
    const std::string& name = p.strings.Get(r.name);
    if (IsStepName(name)) by_name[StepsName(name)].push_back(&r);
  }
  std::string best;
  for (const auto& [name, ranges] : by_name) {
    if (best.empty() || ranges.size() > by_name[best].size()) best = name;
  }
  Steps out;
  if (best.empty()) return out;
  std::vector<const model::RangeRecord*>& ranges = by_name[best];
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const auto* a, const auto* b) { return a->start_ns < b->start_ns; });
  for (const model::RangeRecord* r : ranges) out.spans.emplace_back(r->start_ns, r->end_ns);
  out.name = best;
  return out;
}

}  // namespace cuscope::analysis
