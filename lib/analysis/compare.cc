#include "lib/analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "lib/analysis/advise.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/summary.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {
namespace {

std::vector<Delta> Ranked(std::map<std::string, Delta>& by_name) {
  std::vector<Delta> out;
  for (auto& [name, d] : by_name) {
    d.name = name;
    out.push_back(d);
  }
  std::stable_sort(out.begin(), out.end(), [](const Delta& a, const Delta& b) {
    return model::Magnitude(a.total_change_ns()) > model::Magnitude(b.total_change_ns());
  });
  return out;
}

}  // namespace

double Delta::total_change_percent() const {
  if (base.total_ns == 0) {
    return next.total_ns == 0 ? 0 : std::numeric_limits<double>::infinity();
  }
  return 100.0 * static_cast<double>(total_change_ns()) / static_cast<double>(base.total_ns);
}

Comparison Compare(const model::Profile& base, const model::Profile& next,
                   const model::AdviseThresholds& thresholds) {
  Comparison c;
  std::map<std::string, Delta> kernels, regions;
  auto add = [&](const model::Profile& p, bool is_base, uint64_t* wall, uint64_t* kernel_ns,
                 uint64_t* kernel_count) {
    Summary s = Summarize(p);
    *wall = s.wall_ns;
    *kernel_count = s.kernel_count;
    for (const auto& row : s.kernels) {
      Side& side = is_base ? kernels[row.name].base : kernels[row.name].next;
      side.count = row.stats.count;
      side.total_ns = row.stats.total_ns;
      side.avg_ns = row.stats.avg_ns;
      model::AddTo(*kernel_ns, row.stats.total_ns);
    }
    for (const auto& row : SummarizeRegions(p)) {
      std::string key = RegionLabel(row);
      Side& side = is_base ? regions[key].base : regions[key].next;
      side.count = row.stats.count;
      side.total_ns = row.stats.total_ns;
      side.avg_ns = row.stats.avg_ns;
      side.kernels = row.kernel_count;
      side.gpu_time_ns = row.gpu_time_ns;
    }
  };
  add(base, true, &c.base_wall_ns, &c.base_kernel_ns, &c.base_kernel_count);
  add(next, false, &c.next_wall_ns, &c.next_kernel_ns, &c.next_kernel_count);
  c.kernels = Ranked(kernels);
  c.regions = Ranked(regions);
  c.verdicts = CompareVerdicts(AnalyzeCounters(base), AnalyzeCounters(next));
  c.findings = CompareFindings(FindingsOf(base, thresholds), FindingsOf(next, thresholds));
  return c;
}

}  // namespace cuscope::analysis
