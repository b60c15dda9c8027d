#include "lib/analysis/torch_inherit.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/analysis/steps.h"

namespace cuscope::analysis {
namespace {

// A kernel's signature and its occurrence in its step.
using LaunchKey = std::tuple<model::StringId, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t,
                             uint32_t, uint32_t>;

bool Attributed(const TorchKernel& t) {
  return t.op != TorchKernel::kNone || t.line != TorchKernel::kNone;
}

// The step's launches (kernel indices) in launch order, each with its key.
std::vector<std::pair<uint32_t, LaunchKey>> Keyed(const model::Profile& p,
                                                  std::vector<std::pair<uint64_t, uint32_t>> step) {
  std::sort(step.begin(), step.end());
  absl::flat_hash_map<LaunchKey, uint32_t> seen;
  std::vector<std::pair<uint32_t, LaunchKey>> out;
  out.reserve(step.size());
  for (const auto& [t, k] : step) {
    const model::KernelRecord& r = p.kernels[k];
    LaunchKey key{r.name, r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z, 0};
    std::get<7>(key) = seen[key]++;
    out.emplace_back(k, key);
  }
  return out;
}

}  // namespace

void InheritFromSteps(const model::Profile& p, const ApiByCorrelation& apis,
                      std::vector<TorchKernel>* kernels) {
  if (kernels->empty()) return;
  const Steps steps = StepsOf(p);
  if (steps.count() < 2) return;
  // Each kernel's step, by its launch's start: (launch time, kernel) per step.
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> launches(steps.count());
  for (uint32_t k = 0; k < p.kernels.size(); ++k) {
    if (p.kernels[k].correlation_id == 0) continue;
    const uint32_t api = apis.Find(p.kernels[k].correlation_id);
    if (api == ApiByCorrelation::kNone) continue;
    const uint64_t t = p.api_calls[api].start_ns;
    auto it = std::upper_bound(steps.spans.begin(), steps.spans.end(), t,
                               [](uint64_t v, const auto& span) { return v < span.first; });
    if (it == steps.spans.begin()) continue;
    --it;
    if (t >= it->second) continue;
    launches[static_cast<size_t>(it - steps.spans.begin())].emplace_back(t, k);
  }
  absl::flat_hash_map<LaunchKey, uint32_t> reference;  // the last attributed step's
  for (auto& step : launches) {
    if (step.empty()) continue;
    const std::vector<std::pair<uint32_t, LaunchKey>> keyed = Keyed(p, std::move(step));
    size_t attributed = 0;
    for (const auto& [k, key] : keyed) attributed += Attributed((*kernels)[k]) ? 1 : 0;
    if (2 * attributed > keyed.size()) {
      reference.clear();
      for (const auto& [k, key] : keyed) reference.emplace(key, k);
      continue;
    }
    if (reference.empty()) continue;
    for (const auto& [k, key] : keyed) {
      TorchKernel& t = (*kernels)[k];
      if (Attributed(t)) continue;
      auto it = reference.find(key);
      if (it == reference.end() || !Attributed((*kernels)[it->second])) continue;
      t = (*kernels)[it->second];
      t.inherited = true;
    }
  }
}

}  // namespace cuscope::analysis
