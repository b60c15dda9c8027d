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
    b.of_program = base.own_ns > 0 || next.own_ns > 0;
    b.base.device_id = b.next.device_id = id;
    out.push_back(std::move(b));
  }
  return out;
}

// The kernels' rows: each kernel's comparable launches on both sides.
std::vector<Delta> KernelDeltas(const KernelTimeComparison& kt) {
  std::map<std::string, Delta> by_name;
  auto side = [](const ComparableSide& s) {
    Side out;
    out.count = s.launches;
    out.total_ns = s.total_ns;
    out.avg_ns = s.launches > 0 ? double(s.total_ns) / double(s.launches) : 0.0;
    return out;
  };
  for (const auto& [name, k] : kt.kernels) {
    Delta& d = by_name[name];
    d.base = side(k.base);
    d.next = side(k.next);
    d.left_out = k.why;
    d.base_left_out = k.base.left_out;
    d.next_left_out = k.next.left_out;
  }
  return Ranked(by_name);
}

void AddRegions(const model::Profile& p, bool is_base, std::map<std::string, Delta>& regions) {
  for (const auto& row : SummarizeRegions(p)) {
    std::string key = RegionLabel(row);
    Side& side = is_base ? regions[key].base : regions[key].next;
    side.count = row.stats.count;
    side.total_ns = row.stats.total_ns;
    side.avg_ns = row.stats.avg_ns;
    side.kernels = row.kernel_count;
    side.gpu_time_ns = row.gpu_time_ns;
  }
}

// A memory row whose counts or bytes differ while a profile left such records out.
void MarkNotCompared(bool memory_complete, TotalsDelta& d) {
  d.not_compared =
      !memory_complete && (d.base.count != d.next.count || d.base.bytes != d.next.bytes);
}

}  // namespace

double Delta::total_change_percent() const {
  return ChangePercent(static_cast<double>(base.total_ns), static_cast<double>(next.total_ns));
}

Comparison Compare(const model::Profile& base, const model::Profile& next,
                   const model::AdviseThresholds& thresholds) {
  Comparison c;
  c.base_profiler = EffectsOf(base);
  c.next_profiler = EffectsOf(next);
  const Summary base_summary = Summarize(base), next_summary = Summarize(next);
  c.base_wall_ns = base_summary.wall_ns;
  c.next_wall_ns = next_summary.wall_ns;
  c.base_kernel_ns = base_summary.kernel_ns;
  c.next_kernel_ns = next_summary.kernel_ns;
  c.base_kernel_count = base_summary.kernel_count;
  c.next_kernel_count = next_summary.kernel_count;
  c.kernel_count_compared =
      c.base_kernel_count == c.next_kernel_count ||
      (c.base_profiler.kernel_records_complete() && c.next_profiler.kernel_records_complete());
  c.kernel_time = CompareKernelTime(base, c.base_profiler, next, c.next_profiler);
  // Whole: the comparable launches are each side's timed launches, nothing more or less.
  c.kernel_time.whole = c.kernel_time.base.total_ns == base_summary.kernel_ns &&
                        c.kernel_time.next.total_ns == next_summary.kernel_ns &&
                        c.kernel_time.base.launches == base_summary.timed_launches &&
                        c.kernel_time.next.launches == next_summary.timed_launches;
  c.kernels = KernelDeltas(c.kernel_time);
  std::map<std::string, Delta> regions;
  AddRegions(base, true, regions);
  AddRegions(next, false, regions);
  c.regions = Ranked(regions);
  c.busy = CompareBusy(base_summary, next_summary);
  const bool memory_complete =
      c.base_profiler.memory_complete() && c.next_profiler.memory_complete();
  c.memory = CompareMemory(base_summary, next_summary);
  std::vector<TotalsDelta> copies;
  for (TotalsDelta& d : c.memory) {
    MarkNotCompared(memory_complete, d);
    if (absl::StartsWith(d.name, "[CUDA memcpy")) copies.push_back(d);
  }
  c.copies = SumOf(copies, "all copies");
  MarkNotCompared(memory_complete, c.copies);
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
  ConfirmFindingChanges(base, c.base_profiler, next, c.next_profiler, thresholds, c.findings);
  c.sampled = CompareSampled(AnalyzeGpuSamples(base), AnalyzeGpuSamples(next));
  if (HasPcSamples(base) && HasPcSamples(next)) {
    c.source = CompareSource(FindSourceHotspots(base, {}), FindSourceHotspots(next, {}));
  }
  return c;
}

}  // namespace cuscope::analysis
