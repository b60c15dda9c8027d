#include "lib/analysis/compare.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/match.h"
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

std::vector<BusyDelta> CompareBusy(const Summary& base, const Summary& next) {
  std::map<uint32_t, BusyDelta> by_device;
  for (const DeviceBusy& d : base.devices) {
    BusyDelta& b = by_device[d.device_id];
    b.base = d;
    b.device_name = d.device_name;
  }
  for (const DeviceBusy& d : next.devices) {
    BusyDelta& b = by_device[d.device_id];
    b.next = d;
    if (!d.device_name.empty()) b.device_name = d.device_name;
  }
  std::vector<BusyDelta> out;
  for (auto& [id, b] : by_device) {
    b.device_id = id;
    b.base.device_id = b.next.device_id = id;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace

double Delta::total_change_percent() const {
  return ChangePercent(static_cast<double>(base.total_ns), static_cast<double>(next.total_ns));
}

Comparison Compare(const model::Profile& base, const model::Profile& next,
                   const model::AdviseThresholds& thresholds) {
  Comparison c;
  const Summary base_summary = Summarize(base), next_summary = Summarize(next);
  std::map<std::string, Delta> kernels, regions;
  auto add = [&](const model::Profile& p, const Summary& s, bool is_base, uint64_t* wall,
                 uint64_t* kernel_ns, uint64_t* kernel_count) {
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
  add(base, base_summary, true, &c.base_wall_ns, &c.base_kernel_ns, &c.base_kernel_count);
  add(next, next_summary, false, &c.next_wall_ns, &c.next_kernel_ns, &c.next_kernel_count);
  c.kernels = Ranked(kernels);
  c.regions = Ranked(regions);
  c.busy = CompareBusy(base_summary, next_summary);
  c.memory = CompareMemory(base_summary, next_summary);
  std::vector<TotalsDelta> copies;
  for (const TotalsDelta& d : c.memory) {
    if (absl::StartsWith(d.name, "[CUDA memcpy")) copies.push_back(d);
  }
  c.copies = SumOf(copies, "all copies");
  c.api = CompareApi(base_summary, next_summary);
  std::vector<TotalsDelta> syncs;
  for (const TotalsDelta& d : c.api) {
    if (d.synchronizing) syncs.push_back(d);
  }
  c.sync_calls = SumOf(syncs, "synchronizing calls");
  c.sync_calls.synchronizing = true;
  c.metrics = CompareMeasuredMetrics(base, next);
  c.verdicts = CompareVerdicts(AnalyzeCounters(base), AnalyzeCounters(next));
  c.findings = CompareFindings(FindingsOf(base, thresholds), FindingsOf(next, thresholds));
  c.sampled = CompareSampled(AnalyzeGpuSamples(base), AnalyzeGpuSamples(next));
  return c;
}

}  // namespace cuscope::analysis
