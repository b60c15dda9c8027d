// AnalyzeCounters (lib/analysis/kernel_counters.h): counter sets grouped by kernel
// signature, averaged, joined with the kernel records and derived (counter_derive.h);
// a signature whose measured launches span several sizes also gets a verdict per size
// (counter_sizes.h).
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
#include "lib/analysis/counter_sizes.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/kernel_groups.h"
#include "lib/analysis/summary.h"
#include "lib/model/checked.h"
#include "lib/model/metrics.h"

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

// The sets of each signature, gathered into its KernelCounters.
using SetGroups = std::map<SetKey, KernelCounters>;

// Whether `a` went further than `b`: complete first, then more passes run, then more
// metrics measured.
bool Better(const SetProgress& a, const SetProgress& b) {
  return std::make_tuple(a.complete(), a.passes_run, a.metrics_measured) >
         std::make_tuple(b.complete(), b.passes_run, b.metrics_measured);
}

// Groups the sets by signature.
SetGroups GroupSets(const model::Profile& p) {
  SetGroups groups;
  for (uint32_t set_index = 0; set_index < p.counters.size(); ++set_index) {
    const model::CounterSet& s = p.counters[set_index];
    const std::string& name = p.str(s.name);
    KernelCounters& k = groups[MakeKey(s.device_id, name, s.grid, s.block)];
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
    KernelCounters& k = it->second;
    if (!k.launch_config && g.config_known) k.launch_config = LaunchConfig{g.registers, g.shared};
    k.launches += g.launches;
    model::AddTo(k.total_time_ns, g.kernel_ns);
  }
  return all_kernel_ns;
}

// Each finite metric averaged over the sets `set_indices`, by name.
std::vector<std::pair<std::string, double>> Averages(const model::Profile& p,
                                                     const std::vector<uint32_t>& set_indices) {
  std::map<std::string, std::pair<double, uint64_t>> sums;
  for (uint32_t i : set_indices) {
    for (const auto& [id, v] : p.counters[i].values) {
      if (!std::isfinite(v)) continue;
      auto& [sum, n] = sums[p.str(id)];
      sum += v;
      ++n;
    }
  }
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [name, sum_n] : sums) out.emplace_back(name, sum_n.first / double(sum_n.second));
  return out;
}

// A verdict per launch size for the signatures whose measured launches span several
// (counter_sizes.h): each size's sets averaged and derived alone.
void SplitSizes(const model::Profile& p, const Ceilings& ceilings, KernelCounters& k) {
  if (k.region || k.set_indices.size() < 2) return;
  std::vector<double> durations;
  for (uint32_t i : k.set_indices) {
    durations.push_back(p.counters[i].value(p.strings, ::cuscope::metrics::kDuration, 0));
  }
  auto derive = [&](LaunchSize& size) {
    KernelCounters alone = k;
    alone.sizes.clear();
    alone.values = Averages(p, size.set_indices);
    DeriveCounters(alone, ceilings, p.FindDevice(k.device_id));
    size.verdict = std::move(alone.verdict);
  };
  std::vector<LaunchSize> sizes = SplitBySize(k.set_indices, durations);
  for (LaunchSize& size : sizes) derive(size);
  // Neighbours that say the same are one size, its verdict from all their sets.
  k.sizes.clear();
  for (LaunchSize& size : sizes) {
    if (!k.sizes.empty() && SameVerdict(k.sizes.back().verdict, size.verdict)) {
      LaunchSize& last = k.sizes.back();
      last.max_ns = size.max_ns;
      last.set_indices.insert(last.set_indices.end(), size.set_indices.begin(),
                              size.set_indices.end());
      derive(last);
    } else {
      k.sizes.push_back(std::move(size));
    }
  }
  if (k.sizes.size() < 2) k.sizes.clear();
}

// The signature's kernel records by size: each timed launch to the size of nearest
// duration.
void AddSizeTimes(const model::Profile& p, std::vector<KernelCounters>& out) {
  std::map<SetKey, KernelCounters*> split;
  for (KernelCounters& k : out) {
    if (!k.sizes.empty()) split[MakeKey(k.device_id, k.name, k.grid, k.block)] = &k;
  }
  if (split.empty()) return;
  const std::vector<uint8_t> timed = KernelTimeMask(p);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const model::KernelRecord& r = p.kernels[i];
    auto it = split.find(MakeKey(r.device_id, p.str(r.name), r.grid, r.block));
    if (it == split.end() && r.mangled_name != model::kEmptyString) {
      it = split.find(MakeKey(r.device_id, p.str(r.mangled_name), r.grid, r.block));
    }
    if (it == split.end()) continue;
    KernelCounters& k = *it->second;
    LaunchSize& size = k.sizes[NearestSize(k.sizes, double(r.duration_ns()))];
    ++size.launches;
    if (timed[i]) model::AddTo(size.time_ns, r.duration_ns());
  }
  for (auto& [key, k] : split) {
    for (LaunchSize& size : k->sizes) {
      size.time_percent =
          k->total_time_ns > 0 ? 100.0 * double(size.time_ns) / double(k->total_time_ns) : 0;
    }
  }
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
  for (auto& [key, k] : groups) {
    k.values = Averages(p, k.set_indices);
    DeriveCounters(k, ceilings[k.device_id], p.FindDevice(k.device_id));
    SplitSizes(p, ceilings[k.device_id], k);
    if (k.launches == 0) {
      k.total_time_ns = model::SaturatingFromDouble(k.duration_ns * double(k.sets));
      k.time_estimated = true;
    }
    out.push_back(std::move(k));
  }
  AddRegionKernelTime(p, ceilings, region_rows, &out);
  AddSizeTimes(p, out);
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
