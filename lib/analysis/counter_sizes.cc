#include "lib/analysis/counter_sizes.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace cuscope::analysis {

std::vector<LaunchSize> SplitBySize(const std::vector<uint32_t>& sets,
                                    const std::vector<double>& durations) {
  std::vector<std::pair<double, uint32_t>> timed;
  for (size_t i = 0; i < sets.size() && i < durations.size(); ++i) {
    if (durations[i] > 0 && std::isfinite(durations[i])) timed.emplace_back(durations[i], sets[i]);
  }
  std::sort(timed.begin(), timed.end());
  std::vector<LaunchSize> sizes;
  for (const auto& [ns, set] : timed) {
    if (sizes.empty() || ns > sizes.back().max_ns * kSizeGap) {
      LaunchSize& s = sizes.emplace_back();
      s.min_ns = ns;
    }
    sizes.back().max_ns = ns;
    sizes.back().set_indices.push_back(set);
  }
  if (sizes.size() < 2) sizes.clear();
  return sizes;
}

bool SameVerdict(const Verdict& a, const Verdict& b) {
  return a.sol_class == b.sol_class && a.bound == b.bound;
}

size_t NearestSize(const std::vector<LaunchSize>& sizes, double duration_ns) {
  const double x = std::log(std::max(duration_ns, 1.0));
  size_t best = 0;
  double best_distance = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    // 0 inside the size's range, else the log distance to its nearer end.
    const double lo = std::log(sizes[i].min_ns), hi = std::log(sizes[i].max_ns);
    const double distance = x < lo ? lo - x : x > hi ? x - hi : 0;
    if (i == 0 || distance < best_distance) {
      best = i;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace cuscope::analysis
