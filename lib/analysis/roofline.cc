#include "lib/analysis/roofline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/summary.h"
#include "lib/model/metrics.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;

constexpr double kInf = std::numeric_limits<double>::infinity();

// H100 (sm_90) limits, used when a DeviceInfo field is 0.
constexpr int kH100MaxWarpsPerSm = 64;
constexpr int kH100MaxBlocksPerSm = 32;
constexpr int kH100RegistersPerSm = 65536;
constexpr int kH100RegistersPerBlock = 65536;
constexpr int kH100SharedPerSm = 233472;  // 228 KB
constexpr int kH100ThreadsPerBlock = 1024;
constexpr int kH100WarpSize = 32;
constexpr int kH100SmCount = 132;
// Hopper allocation rules.
constexpr int kRegisterAllocationUnit = 256;  // registers per warp
constexpr int kMaxRegistersPerThread = 255;
constexpr int kSubPartitions = 4;
constexpr int kSharedAllocationUnit = 128;
constexpr int kSharedReservedPerBlock = 1024;

int Or(int v, int fallback) { return v > 0 ? v : fallback; }

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// "90%" / "0.3%": whole numbers from 1 up, one decimal below.
std::string Pct(double p) {
  if (!std::isfinite(p)) return "-";
  if (p >= 1 || p == 0) return absl::StrFormat("%.0f%%", p);
  return absl::StrFormat("%.1f%%", p);
}

// Per device: the value of each of a fixed list of metrics (device_metrics first,
// else the median over the device's CounterSets).
class DeviceValues {
 public:
  DeviceValues(const model::Profile& p, uint32_t device_id,
               const std::vector<const char*>& metrics) {
    for (size_t i = 0; i < metrics.size(); ++i) names_[metrics[i]] = i;
    std::vector<std::vector<double>> samples(metrics.size());
    std::vector<bool> direct(metrics.size(), false);
    values_.assign(metrics.size(), 0);
    found_.assign(metrics.size(), false);
    for (const model::DeviceMetric& d : p.device_metrics) {
      if (d.device_id != device_id) continue;
      auto it = names_.find(absl::string_view(p.str(d.metric)));
      if (it == names_.end()) continue;
      values_[it->second] = d.value;
      found_[it->second] = direct[it->second] = true;
    }
    for (const model::CounterSet& s : p.counters) {
      if (s.device_id != device_id) continue;
      for (const auto& [id, v] : s.values) {
        auto it = names_.find(absl::string_view(p.str(id)));
        if (it == names_.end() || direct[it->second] || !std::isfinite(v)) continue;
        samples[it->second].push_back(v);
      }
    }
    for (size_t i = 0; i < metrics.size(); ++i) {
      if (direct[i] || samples[i].empty()) continue;
      values_[i] = Median(std::move(samples[i]));
      found_[i] = true;
    }
  }
  // 0 when not measured.
  double Get(const char* metric) const {
    auto it = names_.find(metric);
    return it != names_.end() && found_[it->second] ? values_[it->second] : 0;
  }

 private:
  absl::flat_hash_map<absl::string_view, size_t> names_;
  std::vector<double> values_;
  std::vector<bool> found_;
};

// Product of positive factors, 0 when one is missing.
double Peak(double per_cycle, double factor, double clock_hz) {
  if (!(per_cycle > 0) || !(clock_hz > 0) || !std::isfinite(per_cycle) || !std::isfinite(clock_hz)) {
    return 0;
  }
  return per_cycle * factor * clock_hz;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

// Signature of a counter set: (device, name, grid, block).
using SetKey = std::tuple<uint32_t, std::string, uint32_t, uint32_t, uint32_t, uint32_t,
                          uint32_t, uint32_t>;
SetKey MakeKey(uint32_t device, const std::string& name, const model::Dim3& g,
               const model::Dim3& b) {
  return {device, name, g.x, g.y, g.z, b.x, b.y, b.z};
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

struct Unit {
  std::string name;
  double pct;
  Verdict verdict;
};

void ComputeVerdict(KernelCounters& k) {
  std::vector<Unit> units;
  if (k.compute_known) units.push_back({PrecisionName(k.dominant), k.pct_compute, Verdict::kComputeBound});
  if (k.dram_known) units.push_back({"DRAM", k.pct_dram, Verdict::kDramBound});
  if (k.l2_known) units.push_back({"L2", k.pct_l2, Verdict::kL2Bound});
  if (k.l1_known) units.push_back({"L1", k.pct_l1, Verdict::kL1Bound});
  if (units.empty()) {
    k.verdict = Verdict::kUnknown;
    k.reason = k.duration_ns > 0 || !k.values.empty()
                   ? "no utilisation measured (neither FLOP/byte counts with ceilings nor "
                     "% of peak metrics): verdict unknown"
                   : "no counters: verdict unknown";
    return;
  }
  size_t top = 0;
  for (size_t i = 1; i < units.size(); ++i) {
    if (units[i].pct > units[top].pct) top = i;
  }
  if (units[top].pct < kBoundThresholdPercent) {
    k.verdict = Verdict::kLatencyBound;
    k.small_grid = k.wave_blocks > 0 && k.grid.volume() < k.wave_blocks;
    std::vector<Unit> sorted = units;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const Unit& a, const Unit& b) { return a.pct > b.pct; });
    std::vector<std::string> parts;
    for (const Unit& u : sorted) parts.push_back(absl::StrCat(u.name, " at ", Pct(u.pct)));
    k.reason = absl::StrFormat("every unit under %.0f%% of peak (%s): latency-bound",
                               kBoundThresholdPercent, absl::StrJoin(parts, ", "));
    if (k.small_grid) {
      absl::StrAppend(&k.reason, absl::StrFormat("; grid of %d block%s < one wave of %d (small grid)",
                                                 k.grid.volume(), k.grid.volume() == 1 ? "" : "s",
                                                 k.wave_blocks));
    }
    return;
  }
  // A kernel whose compute roof is nearly as busy as its busiest memory level runs
  // at its compute ceiling: a Hopper wgmma GEMM keeps the L1 data pipe (shared
  // memory operands) as busy as the tensor cores, and only less math makes it
  // faster. Within kComputeTiePoints of the top, compute names the verdict.
  for (size_t i = 0; i < units.size(); ++i) {
    if (units[i].verdict == Verdict::kComputeBound && i != top &&
        units[i].pct >= kBoundThresholdPercent &&
        units[top].pct - units[i].pct <= kComputeTiePoints) {
      top = i;
      break;
    }
  }
  const Unit& u = units[top];
  k.verdict = u.verdict;
  std::vector<std::string> others;
  for (size_t i = 0; i < units.size(); ++i) {
    if (i == top) continue;
    const bool is_compute = units[i].verdict == Verdict::kComputeBound;
    const bool is_dram = units[i].verdict == Verdict::kDramBound;
    const bool is_close = units[i].pct >= kBoundThresholdPercent;
    if (is_compute || is_dram || is_close) others.push_back(absl::StrCat(units[i].name, " at ", Pct(units[i].pct)));
  }
  k.reason = absl::StrCat(u.name, " at ", Pct(u.pct), " of peak");
  if (!others.empty()) absl::StrAppend(&k.reason, ", ", absl::StrJoin(others, ", "));
  absl::StrAppend(&k.reason, ": ", VerdictName(k.verdict));
  if (k.has(m::kDramBytes) && k.total_flops > 0) {
    absl::StrAppend(&k.reason, "; AI ", FormatRatio(k.ai_dram), " FLOP/B (DRAM)");
    if (k.ridge_dram > 0) absl::StrAppend(&k.reason, ", ridge ", FormatRatio(k.ridge_dram));
  }
}

// Fills everything that follows from the averaged values.
void Derive(KernelCounters& k, const Ceilings& c, const model::DeviceInfo* device) {
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

  // Compute: % of each precision's roof.
  const bool flops_measured = k.has(m::kFadd) || k.has(m::kFmul) || k.has(m::kFfma) ||
                              k.has(m::kDadd) || k.has(m::kDmul) || k.has(m::kDfma) ||
                              k.has(m::kHadd) || k.has(m::kHmul) || k.has(m::kHfma) ||
                              k.has(m::kTensorBf16Gmma) || k.has(m::kTensorBf16Mma);
  const bool timed = seconds > 0;
  k.pct_fp64 = Ratio(k.fp64_flops_per_s, c.peak_fp64_flops) * 100;
  k.pct_fp32 = Ratio(k.fp32_flops_per_s, c.peak_fp32_flops) * 100;
  k.pct_fp16 = Ratio(k.fp16_flops_per_s, c.peak_fp16_flops) * 100;
  k.pct_tensor = Ratio(k.tensor_flops_per_s, c.peak_tensor_bf16_flops) * 100;
  const bool any_flop_ceiling = c.peak_fp64_flops > 0 || c.peak_fp32_flops > 0 ||
                                c.peak_fp16_flops > 0 || c.peak_tensor_bf16_flops > 0;
  struct P {
    Precision p;
    double pct, peak;
  };
  const P precisions[] = {{Precision::kFp32, k.pct_fp32, c.peak_fp32_flops},
                          {Precision::kFp64, k.pct_fp64, c.peak_fp64_flops},
                          {Precision::kFp16, k.pct_fp16, c.peak_fp16_flops},
                          {Precision::kTensorBf16, k.pct_tensor, c.peak_tensor_bf16_flops}};
  k.dominant = Precision::kFp32;
  double best = -1, dominant_peak = 0;
  for (const P& p : precisions) {
    if (p.peak > 0 && p.pct > best) best = p.pct, k.dominant = p.p, dominant_peak = p.peak;
  }
  if (flops_measured && timed && any_flop_ceiling) {
    k.compute_known = true;
    k.pct_compute = std::max({k.pct_fp64, k.pct_fp32, k.pct_fp16, k.pct_tensor});
  } else if (k.has(m::kFmaPipePct) || k.has(m::kTensorPipePct)) {
    // Only speed-of-light metrics: the busiest math pipe stands for compute.
    k.compute_known = true;
    const double fma = k.value(m::kFmaPipePct), tensor = k.value(m::kTensorPipePct);
    k.pct_compute = std::max(fma, tensor);
    k.dominant = tensor > fma ? Precision::kTensorBf16 : Precision::kFp32;
  }

  // Memory: the measured % of peak first, else achieved / ceiling, else SOL throughput.
  auto level = [&](const char* pct_metric, double bytes_per_s, const char* bytes_metric,
                   double ceiling, const char* sol_metric, double& pct, bool& known) {
    if (pct_metric != nullptr && k.has(pct_metric)) {
      pct = k.value(pct_metric), known = true;
    } else if (timed && ceiling > 0 && k.has(bytes_metric)) {
      pct = bytes_per_s / ceiling * 100, known = true;
    } else if (k.has(sol_metric)) {
      pct = k.value(sol_metric), known = true;
    }
  };
  level(m::kDramPct, k.dram_bytes_per_s, m::kDramBytes, c.peak_dram_bytes_per_s,
        m::kDramThroughputPct, k.pct_dram, k.dram_known);
  level(m::kL2Pct, k.l2_bytes_per_s, m::kL2Bytes, c.peak_l2_bytes_per_s, m::kL2ThroughputPct,
        k.pct_l2, k.l2_known);
  if (k.has(m::kL1Pct) || k.has(m::kL1WavefrontsPct)) {
    k.pct_l1 = std::max(k.value(m::kL1Pct), k.value(m::kL1WavefrontsPct));
    k.l1_known = true;
  } else {
    level(nullptr, k.l1_bytes_per_s, m::kL1Bytes, c.peak_l1_bytes_per_s, m::kL1ThroughputPct,
          k.pct_l1, k.l1_known);
  }

  // Ridge points of the dominant precision.
  if (dominant_peak <= 0) {
    for (const P& p : precisions) {
      if (p.p == k.dominant) dominant_peak = p.peak;
    }
  }
  k.ridge_dram = Ratio(dominant_peak, c.peak_dram_bytes_per_s);
  k.ridge_l2 = Ratio(dominant_peak, c.peak_l2_bytes_per_s);
  k.ridge_l1 = Ratio(dominant_peak, c.peak_l1_bytes_per_s);

  // Occupancy and the wave.
  const int sm_count = device != nullptr ? Or(device->sm_count, kH100SmCount) : kH100SmCount;
  static const model::DeviceInfo kNoDevice;
  if (!k.region && k.launch_config_known) {
    k.theoretical = TheoreticalOccupancy(device != nullptr ? *device : kNoDevice,
                                         static_cast<uint32_t>(k.block.volume()),
                                         k.registers_per_thread, k.shared_bytes_per_block);
  }
  if (!k.region && k.grid.volume() > 0) {
    const int per_sm = k.theoretical.valid && k.theoretical.blocks_per_sm > 0
                           ? k.theoretical.blocks_per_sm
                           : 1;
    k.wave_blocks = uint64_t(sm_count) * uint64_t(per_sm);
  }
  k.has_occupancy = k.has(m::kWarpsActivePct) || k.has(m::kWarpsActivePerCycle);
  k.achieved_occupancy_pct = k.value(m::kWarpsActivePct);
  k.achieved_warps_per_sm = k.value(m::kWarpsActivePerCycle);

  // Stalls.
  const double active = k.value(m::kWarpsActive);
  if (active > 0) {
    for (const std::string& r : m::StallReasons()) {
      const std::string metric = absl::StrCat(m::kStallPrefix, r, ".avg");
      if (k.has(metric)) k.stalls.push_back({r, k.value(metric) / active * 100});
    }
    std::stable_sort(k.stalls.begin(), k.stalls.end(),
                     [](const StallShare& a, const StallShare& b) { return a.percent > b.percent; });
  }

  // Memory access quality.
  for (const char* metric :
       {m::kSharedLdBankConflicts, m::kSharedStBankConflicts, m::kSharedLdInst, m::kSharedStInst,
        m::kGlobalLdSectors, m::kGlobalLdRequests, m::kGlobalStSectors, m::kGlobalStRequests}) {
    k.has_memory |= k.has(metric);
  }
  k.shared_ld_conflicts_per_inst = Ratio(k.value(m::kSharedLdBankConflicts), k.value(m::kSharedLdInst));
  k.shared_st_conflicts_per_inst = Ratio(k.value(m::kSharedStBankConflicts), k.value(m::kSharedStInst));
  k.global_ld_sectors_per_request = Ratio(k.value(m::kGlobalLdSectors), k.value(m::kGlobalLdRequests));
  k.global_st_sectors_per_request = Ratio(k.value(m::kGlobalStSectors), k.value(m::kGlobalStRequests));

  // Speed of light.
  const std::pair<const char*, const char*> sol_units[] = {
      {"SM", m::kSmThroughputPct},       {"DRAM", m::kDramThroughputPct},
      {"L2", m::kL2ThroughputPct},       {"L1", m::kL1ThroughputPct},
      {"tensor pipe", m::kTensorPipePct}, {"FMA pipe", m::kFmaPipePct}};
  double highest = -1;
  for (const auto& [unit, metric] : sol_units) {
    if (!k.has(metric)) continue;
    k.has_sol = true;
    if (k.value(metric) > highest) highest = k.value(metric), k.sol_highest_unit = unit;
  }
  k.has_sol |= k.has(m::kMemThroughputPct);
  k.sol_sm_pct = k.value(m::kSmThroughputPct);
  k.sol_memory_pct = k.value(m::kMemThroughputPct);
  k.sol_dram_pct = k.value(m::kDramThroughputPct);
  k.sol_l2_pct = k.value(m::kL2ThroughputPct);
  k.sol_l1_pct = k.value(m::kL1ThroughputPct);
  k.sol_tensor_pipe_pct = k.value(m::kTensorPipePct);
  k.sol_fma_pipe_pct = k.value(m::kFmaPipePct);

  ComputeVerdict(k);
}

}  // namespace

// --- Names and formatting -------------------------------------------------------------

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kComputeBound: return "compute-bound";
    case Verdict::kDramBound: return "DRAM-bound";
    case Verdict::kL2Bound: return "L2-bound";
    case Verdict::kL1Bound: return "L1-bound";
    case Verdict::kLatencyBound: return "latency-bound";
    case Verdict::kUnknown: break;
  }
  return "unknown";
}

const char* PrecisionName(Precision p) {
  switch (p) {
    case Precision::kFp64: return "FP64";
    case Precision::kFp32: return "FP32";
    case Precision::kFp16: return "FP16";
    case Precision::kTensorBf16: return "BF16 tensor";
  }
  return "?";
}

std::string FormatRatio(double v) {
  if (!std::isfinite(v)) return "-";
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 10) return absl::StrFormat("%.0f", v);
  if (a >= 1) return absl::StrFormat("%.1f", v);
  return absl::StrFormat("%.2g", v);
}

std::string FormatRate(double v, const char* unit) {
  if (!std::isfinite(v)) return absl::StrCat("- ", unit);
  static const struct {
    double scale;
    const char* prefix;
  } kPrefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& p : kPrefixes) {
    if (std::fabs(v) >= p.scale) return absl::StrFormat("%.1f %s%s", v / p.scale, p.prefix, unit);
  }
  return absl::StrFormat("%.1f %s", v, unit);
}

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

// --- Ceilings ---------------------------------------------------------------------------

Ceilings ComputeCeilings(const model::Profile& profile, uint32_t device_id) {
  static const std::vector<const char*> kMetrics = {
      m::kSmClock,   m::kDramClock, m::kL2Clock,   m::kL1Clock,   m::kDramPeak,
      m::kL2Peak,    m::kL1Peak,    m::kFfmaPeak,  m::kDfmaPeak,  m::kHfmaPeak,
      m::kTensorBf16Peak};
  const DeviceValues v(profile, device_id, kMetrics);
  Ceilings c;
  c.device_id = device_id;
  c.sm_clock_hz = v.Get(m::kSmClock);
  c.peak_fp32_flops = Peak(v.Get(m::kFfmaPeak), 2, c.sm_clock_hz);
  c.peak_fp64_flops = Peak(v.Get(m::kDfmaPeak), 2, c.sm_clock_hz);
  c.peak_fp16_flops = Peak(v.Get(m::kHfmaPeak), 4, c.sm_clock_hz);
  // Assumption to verify on the GPU: the tensor "ops" count FLOPs (an FMA = 2 ops).
  // The bf16 tensor path's peak_sustained is that of 2:4-sparse operation: measured
  // on the H200, 1,081,344 ops/cycle = 2 x 132 SMs x 4096. Dense GEMMs reach half.
  c.peak_tensor_bf16_flops = Peak(v.Get(m::kTensorBf16Peak), 0.5, c.sm_clock_hz);
  c.peak_dram_bytes_per_s = Peak(v.Get(m::kDramPeak), 1, v.Get(m::kDramClock));
  c.peak_l2_bytes_per_s = Peak(v.Get(m::kL2Peak), 1, v.Get(m::kL2Clock));
  c.peak_l1_bytes_per_s = Peak(v.Get(m::kL1Peak), 1, v.Get(m::kL1Clock));
  c.valid = c.peak_fp32_flops > 0 || c.peak_fp64_flops > 0 || c.peak_fp16_flops > 0 ||
            c.peak_tensor_bf16_flops > 0 || c.peak_dram_bytes_per_s > 0 ||
            c.peak_l2_bytes_per_s > 0 || c.peak_l1_bytes_per_s > 0;
  return c;
}

std::vector<Ceilings> ComputeAllCeilings(const model::Profile& profile) {
  std::set<uint32_t> ids;
  for (const model::CounterSet& s : profile.counters) ids.insert(s.device_id);
  for (const model::DeviceMetric& d : profile.device_metrics) ids.insert(d.device_id);
  std::vector<Ceilings> out;
  for (uint32_t id : ids) out.push_back(ComputeCeilings(profile, id));
  return out;
}

// --- Occupancy --------------------------------------------------------------------------

Occupancy TheoreticalOccupancy(const model::DeviceInfo& device, uint32_t threads_per_block,
                               uint32_t registers_per_thread, uint32_t shared_bytes_per_block) {
  Occupancy o;
  const int warp_size = Or(device.warp_size, kH100WarpSize);
  const int max_warps = Or(device.max_warps_per_sm, kH100MaxWarpsPerSm);
  const int max_blocks = Or(device.max_blocks_per_sm, kH100MaxBlocksPerSm);
  const int regs_per_sm = Or(device.max_registers_per_sm, kH100RegistersPerSm);
  const int regs_per_block = Or(device.max_registers_per_block, kH100RegistersPerBlock);
  const int shared_per_sm = Or(device.max_shared_memory_per_sm, kH100SharedPerSm);
  const int max_threads = Or(device.max_threads_per_block, kH100ThreadsPerBlock);
  if (threads_per_block == 0 || threads_per_block > uint32_t(max_threads) ||
      registers_per_thread > uint32_t(kMaxRegistersPerThread)) {
    return o;
  }
  constexpr int kUnlimited = 1 << 30;
  const int warps_per_block = (int(threads_per_block) + warp_size - 1) / warp_size;
  o.limit_warps = max_warps / warps_per_block;
  o.limit_blocks = max_blocks;
  // Registers: per warp, in allocation units; each sub-partition holds a quarter.
  if (registers_per_thread == 0) {
    o.limit_registers = kUnlimited;
  } else {
    const int regs_per_warp =
        (int(registers_per_thread) * warp_size + kRegisterAllocationUnit - 1) /
        kRegisterAllocationUnit * kRegisterAllocationUnit;
    if (regs_per_warp * warps_per_block > regs_per_block) return o;
    const int warps_per_partition = regs_per_sm / kSubPartitions / regs_per_warp;
    o.limit_registers = warps_per_partition * kSubPartitions / warps_per_block;
  }
  // Shared memory: the reserved 1 KB plus the block's bytes, in allocation units.
  const int64_t shared =
      (int64_t{shared_bytes_per_block} + kSharedReservedPerBlock + kSharedAllocationUnit - 1) /
      kSharedAllocationUnit * kSharedAllocationUnit;
  o.limit_shared = static_cast<int>(std::min<int64_t>(shared_per_sm / shared, kUnlimited));
  // The limiter: the smallest limit; on ties the first of warps, blocks, registers,
  // shared memory.
  const std::pair<int, const char*> limits[] = {{o.limit_warps, "warps"},
                                                {o.limit_blocks, "blocks"},
                                                {o.limit_registers, "registers"},
                                                {o.limit_shared, "shared memory"}};
  o.blocks_per_sm = limits[0].first;
  o.limiter = limits[0].second;
  for (const auto& [n, name] : limits) {
    if (n < o.blocks_per_sm) o.blocks_per_sm = n, o.limiter = name;
  }
  if (o.blocks_per_sm <= 0) {
    o.blocks_per_sm = 0;
    return o;
  }
  o.valid = true;
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.percent = 100.0 * o.warps_per_sm / max_warps;
  return o;
}

// --- Per signature ----------------------------------------------------------------------

namespace {

// "453 us", "1.45 ms", "812 ns": three significant digits.
std::string FormatNsShort(double ns) {
  if (ns >= 1e9) return absl::StrFormat("%.3g s", ns / 1e9);
  if (ns >= 1e6) return absl::StrFormat("%.3g ms", ns / 1e6);
  if (ns >= 1e3) return absl::StrFormat("%.3g us", ns / 1e3);
  return absl::StrFormat("%.3g ns", ns);
}

double PeakOf(const Ceilings& c, Precision p) {
  switch (p) {
    case Precision::kFp64: return c.peak_fp64_flops;
    case Precision::kFp32: return c.peak_fp32_flops;
    case Precision::kFp16: return c.peak_fp16_flops;
    case Precision::kTensorBf16: return c.peak_tensor_bf16_flops;
  }
  return 0;
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
    k.region_kernel_ns = double(it->second->gpu_time_ns) / double(with_kernels);
    if (k.region_kernel_ns <= 0) continue;
    k.region_kernel_flops_per_s = k.total_flops / (k.region_kernel_ns * 1e-9);
    std::string line = absl::StrFormat("; its kernels run %s of GPU time per instance (%d traced)",
                                       FormatNsShort(k.region_kernel_ns), with_kernels);
    if (k.total_flops > 0) {
      absl::StrAppend(&line, ": ", FormatRate(k.region_kernel_flops_per_s, "FLOP/s"),
                      " while they run");
      const double peak = PeakOf(ceilings[k.device_id], k.dominant);
      if (peak > 0) {
        absl::StrAppend(&line, absl::StrFormat(" (%s at %s%% of peak)", PrecisionName(k.dominant),
                                               FormatRatio(100 * FlopsOf(k, k.dominant) /
                                                           (k.region_kernel_ns * 1e-9) / peak)));
      }
    }
    k.reason += line;
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

  // Group the sets by signature and average each metric over the sets that have it.
  struct Acc {
    KernelCounters k;
    std::map<std::string, std::pair<double, uint64_t>> sums;
  };
  std::map<SetKey, Acc> groups;
  for (uint32_t set_index = 0; set_index < p.counters.size(); ++set_index) {
    const model::CounterSet& s = p.counters[set_index];
    const std::string& name = p.str(s.name);
    Acc& a = groups[MakeKey(s.device_id, name, s.grid, s.block)];
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

  // Kernel records by signature: launches, time, launch configuration.
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
  uint64_t all_kernel_ns = 0;
  for (const auto& [key, g] : kernels) {
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
    if (!k.launch_config_known) {
      k.launch_config_known = true;
      k.registers_per_thread = g.registers;
      k.shared_bytes_per_block = g.shared;
    }
    k.launches += g.launches;
    k.total_time_ns += g.RankTime();
  }

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

std::string VerdictLabel(const KernelCounters& k) {
  return k.small_grid && k.verdict == Verdict::kLatencyBound
             ? absl::StrCat(VerdictName(k.verdict), " (small grid)")
             : std::string(VerdictName(k.verdict));
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
