#include "lib/analysis/kernel_counters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "lib/analysis/summary.h"
#include "lib/model/metrics.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;

constexpr double kInf = std::numeric_limits<double>::infinity();

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

// Flops, bytes, their rates and the arithmetic intensities.
void DeriveRoofline(KernelCounters& k) {
  k.duration_ns = k.value(m::kDuration);
  k.fp32_flops = k.value(m::kFadd) + k.value(m::kFmul) + 2 * k.value(m::kFfma);
  k.fp64_flops = k.value(m::kDadd) + k.value(m::kDmul) + 2 * k.value(m::kDfma);
  k.fp16_flops = 2 * k.value(m::kHadd) + 2 * k.value(m::kHmul) + 4 * k.value(m::kHfma);
  k.tensor_flops = k.value(m::kTensorBf16Gmma) + k.value(m::kTensorBf16Mma);
  k.total_flops = k.fp32_flops + k.fp64_flops + k.fp16_flops + k.tensor_flops;
  k.dram_bytes = k.value(m::kDramBytes);
  k.l2_bytes = k.value(m::kL2Bytes);
  k.l1_bytes = k.value(m::kL1Bytes);

  const double seconds = k.duration_ns > 0 ? k.duration_ns * 1e-9 : 0;
  auto per_s = [&](double v) { return seconds > 0 ? v / seconds : 0; };
  k.fp32_flops_per_s = per_s(k.fp32_flops);
  k.fp64_flops_per_s = per_s(k.fp64_flops);
  k.fp16_flops_per_s = per_s(k.fp16_flops);
  k.tensor_flops_per_s = per_s(k.tensor_flops);
  k.total_flops_per_s = per_s(k.total_flops);
  k.dram_bytes_per_s = per_s(k.dram_bytes);
  k.l2_bytes_per_s = per_s(k.l2_bytes);
  k.l1_bytes_per_s = per_s(k.l1_bytes);
  auto ai = [&](double bytes) { return bytes > 0 ? k.total_flops / bytes : kInf; };
  k.ai_dram = ai(k.dram_bytes);
  k.ai_l2 = ai(k.l2_bytes);
  k.ai_l1 = ai(k.l1_bytes);
}

// % of each precision's roof, the compute utilisation, the dominant precision and
// the ridge points.
void DeriveCompute(KernelCounters& k, const Ceilings& c) {
  const bool flops_measured = k.has(m::kFadd) || k.has(m::kFmul) || k.has(m::kFfma) ||
                              k.has(m::kDadd) || k.has(m::kDmul) || k.has(m::kDfma) ||
                              k.has(m::kHadd) || k.has(m::kHmul) || k.has(m::kHfma) ||
                              k.has(m::kTensorBf16Gmma) || k.has(m::kTensorBf16Mma);
  k.pct_fp64 = Ratio(k.fp64_flops_per_s, c.peak_fp64_flops) * 100;
  k.pct_fp32 = Ratio(k.fp32_flops_per_s, c.peak_fp32_flops) * 100;
  k.pct_fp16 = Ratio(k.fp16_flops_per_s, c.peak_fp16_flops) * 100;
  k.pct_tensor = Ratio(k.tensor_flops_per_s, c.peak_tensor_bf16_flops) * 100;
  const bool any_flop_ceiling = c.peak_fp64_flops > 0 || c.peak_fp32_flops > 0 ||
                                c.peak_fp16_flops > 0 || c.peak_tensor_bf16_flops > 0;
  const std::pair<Precision, double> precisions[] = {{Precision::kFp32, k.pct_fp32},
                                                     {Precision::kFp64, k.pct_fp64},
                                                     {Precision::kFp16, k.pct_fp16},
                                                     {Precision::kTensorBf16, k.pct_tensor}};
  k.dominant = Precision::kFp32;
  double best = -1, dominant_peak = 0;
  for (const auto& [precision, pct] : precisions) {
    const double peak = PeakFlops(c, precision);
    if (peak > 0 && pct > best) best = pct, k.dominant = precision, dominant_peak = peak;
  }
  if (flops_measured && k.duration_ns > 0 && any_flop_ceiling) {
    k.pct_compute = std::max({k.pct_fp64, k.pct_fp32, k.pct_fp16, k.pct_tensor});
  } else if (k.has(m::kFmaPipePct) || k.has(m::kTensorPipePct)) {
    // Only speed-of-light metrics: the busiest math pipe stands for compute.
    const double fma = k.value(m::kFmaPipePct), tensor = k.value(m::kTensorPipePct);
    k.pct_compute = std::max(fma, tensor);
    k.dominant = tensor > fma ? Precision::kTensorBf16 : Precision::kFp32;
  }
  // Ridge points of the dominant precision (of the one with a roof when the math
  // pipes named the dominant precision).
  if (dominant_peak <= 0) dominant_peak = PeakFlops(c, k.dominant);
  k.ridge_dram = Ratio(dominant_peak, c.peak_dram_bytes_per_s);
  k.ridge_l2 = Ratio(dominant_peak, c.peak_l2_bytes_per_s);
  k.ridge_l1 = Ratio(dominant_peak, c.peak_l1_bytes_per_s);
}

// Memory: the measured % of peak first, else achieved / ceiling, else SOL throughput.
void DeriveMemoryUtilisation(KernelCounters& k, const Ceilings& c) {
  const bool timed = k.duration_ns > 0;
  auto level = [&](const char* pct_metric, double bytes_per_s, const char* bytes_metric,
                   double ceiling, const char* sol_metric, std::optional<double>& pct) {
    if (pct_metric != nullptr && k.has(pct_metric)) {
      pct = k.value(pct_metric);
    } else if (timed && ceiling > 0 && k.has(bytes_metric)) {
      pct = bytes_per_s / ceiling * 100;
    } else if (k.has(sol_metric)) {
      pct = k.value(sol_metric);
    }
  };
  level(m::kDramPct, k.dram_bytes_per_s, m::kDramBytes, c.peak_dram_bytes_per_s,
        m::kDramThroughputPct, k.pct_dram);
  level(m::kL2Pct, k.l2_bytes_per_s, m::kL2Bytes, c.peak_l2_bytes_per_s, m::kL2ThroughputPct,
        k.pct_l2);
  if (k.has(m::kL1Pct) || k.has(m::kL1WavefrontsPct)) {
    k.pct_l1 = std::max(k.value(m::kL1Pct), k.value(m::kL1WavefrontsPct));
  } else {
    level(nullptr, k.l1_bytes_per_s, m::kL1Bytes, c.peak_l1_bytes_per_s, m::kL1ThroughputPct,
          k.pct_l1);
  }
}

// Theoretical and achieved occupancy, and the blocks of one wave.
void DeriveOccupancy(KernelCounters& k, const model::DeviceInfo* device) {
  const int sm_count =
      device != nullptr && device->sm_count > 0 ? device->sm_count : kDefaultSmCount;
  static const model::DeviceInfo kNoDevice;
  if (!k.region && k.launch_config) {
    k.theoretical = TheoreticalOccupancy(device != nullptr ? *device : kNoDevice,
                                         static_cast<uint32_t>(k.block.volume()),
                                         k.launch_config->registers_per_thread,
                                         k.launch_config->shared_bytes_per_block);
  }
  if (!k.region && k.grid.volume() > 0) {
    const int per_sm = k.theoretical.valid && k.theoretical.blocks_per_sm > 0
                           ? k.theoretical.blocks_per_sm
                           : 1;
    k.wave_blocks = uint64_t(sm_count) * uint64_t(per_sm);
  }
  if (k.has(m::kWarpsActivePct) || k.has(m::kWarpsActivePerCycle)) {
    k.achieved_occupancy = AchievedOccupancy{k.value(m::kWarpsActivePct),
                                             k.value(m::kWarpsActivePerCycle)};
  }
}

void DeriveStalls(KernelCounters& k) {
  const double active = k.value(m::kWarpsActive);
  if (active <= 0) return;
  for (const std::string& r : m::StallReasons()) {
    const std::string metric = absl::StrCat(m::kStallPrefix, r, ".avg");
    if (k.has(metric)) k.stalls.push_back({r, k.value(metric) / active * 100});
  }
  std::stable_sort(k.stalls.begin(), k.stalls.end(),
                   [](const StallShare& a, const StallShare& b) { return a.percent > b.percent; });
}

void DeriveMemoryAccess(KernelCounters& k) {
  bool measured = false;
  for (const char* metric :
       {m::kSharedLdBankConflicts, m::kSharedStBankConflicts, m::kSharedLdInst, m::kSharedStInst,
        m::kGlobalLdSectors, m::kGlobalLdRequests, m::kGlobalStSectors, m::kGlobalStRequests}) {
    measured |= k.has(metric);
  }
  if (!measured) return;
  MemoryAccess& a = k.memory.emplace();
  a.shared_ld_conflicts_per_inst = Ratio(k.value(m::kSharedLdBankConflicts), k.value(m::kSharedLdInst));
  a.shared_st_conflicts_per_inst = Ratio(k.value(m::kSharedStBankConflicts), k.value(m::kSharedStInst));
  a.global_ld_sectors_per_request = Ratio(k.value(m::kGlobalLdSectors), k.value(m::kGlobalLdRequests));
  a.global_st_sectors_per_request = Ratio(k.value(m::kGlobalStSectors), k.value(m::kGlobalStRequests));
}

void DeriveSpeedOfLight(KernelCounters& k) {
  const std::pair<const char*, const char*> units[] = {
      {"SM", m::kSmThroughputPct},       {"DRAM", m::kDramThroughputPct},
      {"L2", m::kL2ThroughputPct},       {"L1", m::kL1ThroughputPct},
      {"tensor pipe", m::kTensorPipePct}, {"FMA pipe", m::kFmaPipePct}};
  bool measured = k.has(m::kMemThroughputPct);
  std::string highest_unit;
  double highest = -1;
  for (const auto& [unit, metric] : units) {
    if (!k.has(metric)) continue;
    measured = true;
    if (k.value(metric) > highest) highest = k.value(metric), highest_unit = unit;
  }
  if (!measured) return;
  SpeedOfLight& s = k.sol.emplace();
  s.sm_pct = k.value(m::kSmThroughputPct);
  s.memory_pct = k.value(m::kMemThroughputPct);
  s.dram_pct = k.value(m::kDramThroughputPct);
  s.l2_pct = k.value(m::kL2ThroughputPct);
  s.l1_pct = k.value(m::kL1ThroughputPct);
  s.tensor_pipe_pct = k.value(m::kTensorPipePct);
  s.fma_pipe_pct = k.value(m::kFmaPipePct);
  s.highest_unit = std::move(highest_unit);
}

Verdict VerdictOf(const KernelCounters& k) {
  VerdictInputs in;
  in.compute = k.pct_compute;
  in.dram = k.pct_dram;
  in.l2 = k.pct_l2;
  in.l1 = k.pct_l1;
  in.precision = k.dominant;
  in.counters_measured = k.duration_ns > 0 || !k.values.empty();
  in.grid_blocks = k.grid.volume();
  in.wave_blocks = k.wave_blocks;
  if (k.has(m::kDramBytes) && k.total_flops > 0) in.ai_dram = k.ai_dram;
  in.ridge_dram = k.ridge_dram;
  return ComputeVerdict(in);
}

// Fills everything that follows from the averaged values.
void Derive(KernelCounters& k, const Ceilings& c, const model::DeviceInfo* device) {
  DeriveRoofline(k);
  DeriveCompute(k, c);
  DeriveMemoryUtilisation(k, c);
  DeriveOccupancy(k, device);
  DeriveStalls(k);
  DeriveMemoryAccess(k);
  DeriveSpeedOfLight(k);
  k.verdict = VerdictOf(k);
}

double FlopsOf(const KernelCounters& k, Precision p) {
  switch (p) {
    case Precision::kFp64: return k.fp64_flops;
    case Precision::kFp32: return k.fp32_flops;
    case Precision::kFp16: return k.fp16_flops;
    case Precision::kTensorBf16: return k.tensor_flops;
  }
  return 0;
}

// Regions measured as a whole: their kernels' GPU time per instance, from the
// instances with kernel records (measured instances have none when kernel records
// were paused for instruction counters, "counters.region_kernels").
void AddRegionKernelTime(const model::Profile& p, std::map<uint32_t, Ceilings>& ceilings,
                         const std::vector<RegionSummaryRow>* region_rows,
                         std::vector<KernelCounters>* out) {
  bool any = false;
  for (const KernelCounters& k : *out) any = any || k.region;
  if (!any) return;
  const bool paused = p.run.extra.count("counters.region_kernels") > 0;
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
    if (peak > 0) r.dominant_pct_of_peak = 100 * FlopsOf(k, k.dominant) / (ns * 1e-9) / peak;
  }
}

// Signature of a counter set: (device, name, grid, block).
using SetKey = std::tuple<uint32_t, std::string, uint32_t, uint32_t, uint32_t, uint32_t,
                          uint32_t, uint32_t>;
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

// Kernel records grouped by (device, name id, mangled id, grid, block).
using KernelKey = std::tuple<uint32_t, model::StringId, model::StringId, uint32_t, uint32_t,
                             uint32_t, uint32_t, uint32_t, uint32_t>;
struct KernelGroup {
  uint64_t launches = 0;
  uint64_t total_ns = 0;       // all launches with usable times
  uint64_t timed = 0;          // launches with usable times
  uint64_t unmeasured_ns = 0;  // launches without kKernelCountersMeasured
  uint64_t unmeasured = 0;
  uint32_t registers = 0;
  uint32_t shared = 0;
  // The ranking time: unmeasured mean x launches when some were not measured.
  uint64_t RankTime() const {
    if (unmeasured > 0 && unmeasured < timed) {
      return static_cast<uint64_t>(double(unmeasured_ns) / double(unmeasured) * double(timed));
    }
    return total_ns;
  }
};

absl::flat_hash_map<KernelKey, KernelGroup> GroupKernels(const model::Profile& p) {
  absl::flat_hash_map<KernelKey, KernelGroup> kernels;
  for (const model::KernelRecord& r : p.kernels) {
    KernelGroup& g = kernels[KernelKey{r.device_id, r.name, r.mangled_name, r.grid.x, r.grid.y,
                                       r.grid.z, r.block.x, r.block.y, r.block.z}];
    if (g.launches++ == 0) {
      g.registers = r.registers_per_thread;
      g.shared = r.static_shared_bytes + r.dynamic_shared_bytes;
    }
    if (!HasValidTimes(r)) continue;
    ++g.timed;
    g.total_ns += r.duration_ns();
    if (!(r.flags & model::kKernelCountersMeasured)) {
      ++g.unmeasured;
      g.unmeasured_ns += r.duration_ns();
    }
  }
  return kernels;
}

// Gives each signature the launches, time and launch configuration of its kernel
// records; returns the ranking time of all kernel records.
uint64_t AddKernelRecords(const model::Profile& p, SetGroups& groups) {
  uint64_t all_kernel_ns = 0;
  for (const auto& [key, g] : GroupKernels(p)) {
    all_kernel_ns += g.RankTime();
    const auto& [device, name_id, mangled_id, gx, gy, gz, bx, by, bz] = key;
    const model::Dim3 grid{gx, gy, gz}, block{bx, by, bz};
    // The set's name is the demangled name; a record without one matches by mangled name.
    auto it = groups.find(MakeKey(device, p.str(name_id), grid, block));
    if ((it == groups.end() || name_id == model::kEmptyString) && mangled_id != model::kEmptyString) {
      auto by_mangled = groups.find(MakeKey(device, p.str(mangled_id), grid, block));
      if (by_mangled != groups.end()) it = by_mangled;
    }
    if (it == groups.end()) continue;
    KernelCounters& k = it->second.k;
    if (!k.launch_config) k.launch_config = LaunchConfig{g.registers, g.shared};
    k.launches += g.launches;
    k.total_time_ns += g.RankTime();
  }
  return all_kernel_ns;
}

}  // namespace

std::string KernelCounters::StrategyNames() const {
  std::vector<std::string> names;
  for (model::CounterStrategy s : strategies) names.push_back(model::CounterStrategyName(s));
  return absl::StrJoin(names, "+");
}

double KernelCounters::value(const std::string& metric, double fallback) const {
  auto it = std::lower_bound(values.begin(), values.end(), metric,
                             [](const std::pair<std::string, double>& a, const std::string& b) {
                               return a.first < b;
                             });
  return it != values.end() && it->first == metric ? it->second : fallback;
}

bool KernelCounters::has(const std::string& metric) const {
  auto it = std::lower_bound(values.begin(), values.end(), metric,
                             [](const std::pair<std::string, double>& a, const std::string& b) {
                               return a.first < b;
                             });
  return it != values.end() && it->first == metric;
}

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
    Derive(k, ceilings[k.device_id], p.FindDevice(k.device_id));
    if (k.launches == 0) {
      k.total_time_ns = static_cast<uint64_t>(std::max(0.0, k.duration_ns) * double(k.sets));
    }
    out.push_back(std::move(k));
  }
  AddRegionKernelTime(p, ceilings, region_rows, &out);
  uint64_t denominator = all_kernel_ns;
  for (const KernelCounters& k : out) {
    if (k.launches == 0) denominator += k.total_time_ns;
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

std::vector<std::string> CounterNotes(const model::Profile& profile) {
  return CounterNotes(profile, ComputeAllCeilings(profile));
}

std::vector<std::string> CounterNotes(const model::Profile& profile,
                                      const std::vector<Ceilings>& ceilings) {
  std::vector<std::string> notes;
  constexpr absl::string_view kPrefix = "counters.";
  for (const auto& [key, value] : profile.run.extra) {
    if (!absl::StartsWith(key, kPrefix)) continue;
    notes.push_back(absl::StrCat(absl::string_view(key).substr(kPrefix.size()), ": ", value));
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
