// AnalyzeCounters (lib/analysis/kernel_counters.h): counter sets grouped by kernel
// signature, averaged, joined with the kernel records and derived (counter_derive.h).
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
#include "lib/analysis/counter_derive.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/kernel_groups.h"
#include "lib/analysis/summary.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {
namespace {

// Regions measured as a whole: their kernels' GPU time per instance, from the
// instances with kernel records (measured instances have none when kernel records
// were paused for instruction counters, the counters_region_kernels note).
void AddRegionKernelTime(const model::Profile& p, std::map<uint32_t, Ceilings>& ceilings,
                         const std::vector<RegionSummaryRow>* region_rows,
                         std::vector<KernelCounters>* out) {
  bool any = false;
  for (const KernelCounters& k : *out) any = any || k.region;
  if (!any) return;
  const bool paused = !p.run.notes.counters_region_kernels.empty();
  std::vector<RegionSummaryRow> computed;
  if (region_rows == nullptr) {
    computed = SummarizeRegions(p);
    region_rows = &computed;
  }
  std::map<absl::string_view, const RegionSummaryRow*> rows;
  for (const RegionSummaryRow& row : *region_rows) rows.emplace(row.path, &row);
  for (KernelCounters& k : *out) {
    if (!k.region) continue;
    auto it = rows.find(k.name);
    if (it == rows.end() || it->second->kernel_count == 0) continue;
    const uint64_t measured = k.sets * std::max<uint32_t>(k.max_passes, 1);
    const uint64_t count = it->second->stats.count;
    const uint64_t with_kernels = paused ? (count > measured ? count - measured : 0) : count;
    if (with_kernels == 0) continue;
    const double ns = double(it->second->gpu_time_ns) / double(with_kernels);
    if (ns <= 0) continue;
    RegionKernels& r = k.region_kernels.emplace();
    r.ns_per_instance = ns;
    r.traced_instances = with_kernels;
    r.flops_per_s = k.total_flops / (ns * 1e-9);
    const double peak = PeakFlops(ceilings[k.device_id], k.dominant);
    if (peak > 0) r.dominant_pct_of_peak = 100 * k.flops_of(k.dominant).flops / (ns * 1e-9) / peak;
  }
}

// Signature of a counter set: (device, name, grid, block).
using SetKey =
    std::tuple<uint32_t, std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;
SetKey MakeKey(uint32_t device, const std::string& name, const model::Dim3& g,
               const model::Dim3& b) {
  return {device, name, g.x, g.y, g.z, b.x, b.y, b.z};
}

// The sets of one signature and the sum and count of each metric over them.
struct SetGroup {
  KernelCounters k;
  std::map<std::string, std::pair<double, uint64_t>> sums;
};
using SetGroups = std::map<SetKey, SetGroup>;

// Whether `a` went further than `b`: complete first, then more passes run, then more
// metrics measured.
bool Better(const SetProgress& a, const SetProgress& b) {
  return std::make_tuple(a.complete(), a.passes_run, a.metrics_measured) >
         std::make_tuple(b.complete(), b.passes_run, b.metrics_measured);
}

// Groups the sets by signature, summing each finite metric.
SetGroups GroupSets(const model::Profile& p) {
  SetGroups groups;
  for (uint32_t set_index = 0; set_index < p.counters.size(); ++set_index) {
    const model::CounterSet& s = p.counters[set_index];
    const std::string& name = p.str(s.name);
    SetGroup& a = groups[MakeKey(s.device_id, name, s.grid, s.block)];
    KernelCounters& k = a.k;
    k.set_indices.push_back(set_index);
    if (k.sets == 0) {
      k.device_id = s.device_id;
      k.name = name;
      k.grid = s.grid;
      k.block = s.block;
      k.region = s.grid.volume() == 0 && s.block.volume() == 0;
    }
    const SetProgress progress = ProgressOf(s);
    if (k.sets == 0 || Better(progress, k.progress)) k.progress = progress;
    ++k.sets;
    k.measured_launches += s.correlation_ids.size();
    k.max_passes = std::max(k.max_passes, s.passes);
    if (std::find(k.strategies.begin(), k.strategies.end(), s.strategy) == k.strategies.end()) {
      k.strategies.push_back(s.strategy);
    }
    for (const auto& [id, v] : s.values) {
      if (!std::isfinite(v)) continue;
      auto& [sum, n] = a.sums[p.str(id)];
      sum += v;
      ++n;
    }
  }
  return groups;
}

// Gives each signature the launches, kernel time and launch configuration of its
// kernel records; returns the kernel time of all kernel records (Summary::kernel_ns).
uint64_t AddKernelRecords(const model::Profile& p, SetGroups& groups) {
  uint64_t all_kernel_ns = 0;
  for (const auto& [key, g] : GroupKernels(p)) {
    model::AddTo(all_kernel_ns, g.kernel_ns);
    const auto& [device, name_id, mangled_id, gx, gy, gz, bx, by, bz] = key;
    const model::Dim3 grid{gx, gy, gz}, block{bx, by, bz};
    // The set's name is the demangled name; a record without one matches by mangled name.
    auto it = groups.find(MakeKey(device, p.str(name_id), grid, block));
    if ((it == groups.end() || name_id == model::kEmptyString) &&
        mangled_id != model::kEmptyString) {
      auto by_mangled = groups.find(MakeKey(device, p.str(mangled_id), grid, block));
      if (by_mangled != groups.end()) it = by_mangled;
    }
    if (it == groups.end()) continue;
    KernelCounters& k = it->second.k;
    if (!k.launch_config && g.config_known) k.launch_config = LaunchConfig{g.registers, g.shared};
    k.launches += g.launches;
    model::AddTo(k.total_time_ns, g.kernel_ns);
  }
  return all_kernel_ns;
}

}  // namespace

std::vector<KernelCounters> AnalyzeCounters(const model::Profile& p) {
  return AnalyzeCounters(p, ComputeAllCeilings(p), nullptr);
}

std::vector<KernelCounters> AnalyzeCounters(const model::Profile& p,
                                            const std::vector<Ceilings>& all_ceilings,
                                            const std::vector<RegionSummaryRow>* region_rows) {
  std::vector<KernelCounters> out;
  if (p.counters.empty()) return out;
  SetGroups groups = GroupSets(p);
  const uint64_t all_kernel_ns = AddKernelRecords(p, groups);

  std::map<uint32_t, Ceilings> ceilings;
  for (const Ceilings& c : all_ceilings) ceilings[c.device_id] = c;
  for (auto& [key, a] : groups) {
    KernelCounters& k = a.k;
    for (const auto& [name, sum_n] : a.sums) {
      k.values.emplace_back(name, sum_n.first / double(sum_n.second));
    }
    DeriveCounters(k, ceilings[k.device_id], p.FindDevice(k.device_id));
    if (k.launches == 0) {
      k.total_time_ns = model::SaturatingFromDouble(k.duration_ns * double(k.sets));
      k.time_estimated = true;
    }
    out.push_back(std::move(k));
  }
  AddRegionKernelTime(p, ceilings, region_rows, &out);
  // A share of kernel time, as the kernels table's Time %; only a profile without kernel
  // time (no kernel record) shares out its estimates among themselves.
  uint64_t denominator = all_kernel_ns;
  if (denominator == 0) {
    for (const KernelCounters& k : out) model::AddTo(denominator, k.total_time_ns);
  }
  for (KernelCounters& k : out) {
    k.time_percent = denominator > 0 ? 100.0 * double(k.total_time_ns) / double(denominator) : 0;
  }
  std::stable_sort(out.begin(), out.end(), [](const KernelCounters& a, const KernelCounters& b) {
    if (a.total_time_ns != b.total_time_ns) return a.total_time_ns > b.total_time_ns;
    return a.name < b.name;
  });
  return out;
}

}  // namespace cuscope::analysis
