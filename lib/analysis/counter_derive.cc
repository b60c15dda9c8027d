#include "lib/analysis/counter_derive.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/model/metrics.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;

constexpr double kInf = std::numeric_limits<double>::infinity();

double Ratio(double a, double b) { return b > 0 ? a / b : 0; }

// The FLOPs of each precision, from its counters (FP16 instructions work on half2
// pairs: 2 FLOPs per hadd/hmul, 4 per hfma, as ncu counts them).
void CountFlops(KernelCounters& k) {
  auto set = [&](Precision p, std::initializer_list<std::pair<const char*, double>> terms) {
    PrecisionFlops& f = k.by_precision[static_cast<size_t>(p)];
    for (const auto& [metric, factor] : terms) {
      if (!k.has(metric)) continue;
      f.measured = true;
      f.flops += factor * k.value(metric);
    }
  };
  set(Precision::kFp32, {{m::kFadd, 1}, {m::kFmul, 1}, {m::kFfma, 2}});
  set(Precision::kFp64, {{m::kDadd, 1}, {m::kDmul, 1}, {m::kDfma, 2}});
  set(Precision::kFp16, {{m::kHadd, 2}, {m::kHmul, 2}, {m::kHfma, 4}});
  set(Precision::kTensorFp16, {{m::kTensorFp16, 1}});
  if (k.has(m::kTensorBf16)) {
    set(Precision::kTensorBf16, {{m::kTensorBf16, 1}});
  } else {  // profiles of earlier versions: the bf16 paths
    set(Precision::kTensorBf16, {{m::kTensorBf16Gmma, 1}, {m::kTensorBf16Mma, 1}});
  }
  set(Precision::kTensorTf32, {{m::kTensorTf32, 1}});
  set(Precision::kTensorFp8, {{m::kTensorFp8, 1}});
  set(Precision::kTensorInt8, {{m::kTensorInt8, 1}});
  set(Precision::kTensorFp64, {{m::kTensorFp64, 1}});
}

// Flops, bytes, cycles, their rates and the arithmetic intensities.
void DeriveRoofline(KernelCounters& k) {
  k.duration_ns = k.value(m::kDuration);
  const double seconds = k.duration_ns > 0 ? k.duration_ns * 1e-9 : 0;
  if (k.has(m::kSmCyclesElapsed)) {
    k.elapsed_cycles = k.value(m::kSmCyclesElapsed);
  } else if (k.has(m::kSmClock)) {
    k.elapsed_cycles = k.value(m::kSmClock) * seconds;
  }
  k.sm_clock_hz = Ratio(k.elapsed_cycles, seconds);
  CountFlops(k);
  auto per_s = [&](double v) { return seconds > 0 ? v / seconds : 0; };
  for (PrecisionFlops& f : k.by_precision) {
    f.flops_per_s = per_s(f.flops);
    k.total_flops += f.flops;
  }
  for (Precision p : kAllPrecisions) {
    if (IsTensor(p)) k.tensor_flops += k.flops_of(p).flops;
  }
  k.fp32_flops = k.flops_of(Precision::kFp32).flops;
  k.fp64_flops = k.flops_of(Precision::kFp64).flops;
  k.fp16_flops = k.flops_of(Precision::kFp16).flops;
  k.dram_bytes = k.value(m::kDramBytes);
  k.l2_bytes = k.value(m::kL2Bytes);
  k.l1_bytes = k.value(m::kL1Bytes);
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

// % of each precision's roof (per elapsed cycle when the cycles are known), the
// compute utilisation, the dominant precision and the ridge points.
void DeriveCompute(KernelCounters& k, const Ceilings& c) {
  bool flops_measured = false, any_roof = false;
  double best = -1, most_flops = 0;
  Precision by_flops = Precision::kFp32;
  k.dominant = Precision::kFp32;
  for (Precision p : kAllPrecisions) {
    PrecisionFlops& f = k.by_precision[static_cast<size_t>(p)];
    flops_measured |= f.measured;
    const double per_cycle = PeakFlopsPerCycle(c, p);
    if (k.elapsed_cycles > 0 && per_cycle > 0) {
      f.pct_of_peak = f.flops / (per_cycle * k.elapsed_cycles) * 100;
    } else {
      f.pct_of_peak = Ratio(f.flops_per_s, PeakFlops(c, p)) * 100;
    }
    const bool has_roof = per_cycle > 0 && (k.elapsed_cycles > 0 || PeakFlops(c, p) > 0);
    any_roof |= has_roof;
    if (has_roof && f.pct_of_peak > best) best = f.pct_of_peak, k.dominant = p;
    if (f.flops > most_flops) most_flops = f.flops, by_flops = p;
    if (IsTensor(p)) k.pct_tensor = std::max(k.pct_tensor, f.pct_of_peak);
  }
  if (best <= 0 && most_flops > 0) k.dominant = by_flops;  // no FLOPs against a roof
  k.pct_fp32 = k.flops_of(Precision::kFp32).pct_of_peak;
  k.pct_fp64 = k.flops_of(Precision::kFp64).pct_of_peak;
  k.pct_fp16 = k.flops_of(Precision::kFp16).pct_of_peak;
  if (flops_measured && k.duration_ns > 0 && any_roof) k.pct_compute = std::max(best, 0.0);
  const double dominant_peak = PeakFlops(c, k.dominant);
  k.ridge_dram = Ratio(dominant_peak, c.peak_dram_bytes_per_s);
  k.ridge_l2 = Ratio(dominant_peak, c.peak_l2_bytes_per_s);
  k.ridge_l1 = Ratio(dominant_peak, c.peak_l1_bytes_per_s);
}

// Memory: the unit's throughput over elapsed cycles first, else the earlier
// pct_of_peak metrics, else achieved / ceiling, else the earlier SOL metrics.
void DeriveMemoryUtilisation(KernelCounters& k, const Ceilings& c) {
  const bool timed = k.duration_ns > 0;
  auto level = [&](std::initializer_list<const char*> pct_metrics, double bytes_per_s,
                   const char* bytes_metric, double ceiling, std::optional<double>& pct) {
    for (const char* metric : pct_metrics) {
      if (k.has(metric)) {
        pct = k.value(metric);
        return;
      }
    }
    if (timed && ceiling > 0 && k.has(bytes_metric)) pct = bytes_per_s / ceiling * 100;
  };
  level({m::kDramThroughputPct, m::kDramPct, m::kLegacyDramThroughputPct}, k.dram_bytes_per_s,
        m::kDramBytes, c.peak_dram_bytes_per_s, k.pct_dram);
  level({m::kL2ThroughputPct, m::kL2Pct}, k.l2_bytes_per_s, m::kL2Bytes, c.peak_l2_bytes_per_s,
        k.pct_l2);
  if (!k.has(m::kL1ThroughputPct) && (k.has(m::kL1Pct) || k.has(m::kL1WavefrontsPct))) {
    k.pct_l1 = std::max(k.value(m::kL1Pct), k.value(m::kL1WavefrontsPct));
  } else {
    level({m::kL1ThroughputPct, m::kLegacyL1ThroughputPct}, k.l1_bytes_per_s, m::kL1Bytes,
          c.peak_l1_bytes_per_s, k.pct_l1);
  }
}

// Theoretical and achieved occupancy, and the blocks of one wave.
void DeriveOccupancy(KernelCounters& k, const model::DeviceInfo* device) {
  const int sm_count =
      device != nullptr && device->sm_count > 0 ? device->sm_count : kDefaultSmCount;
  static const model::DeviceInfo kNoDevice;
  if (!k.region && k.launch_config) {
    k.theoretical = TheoreticalOccupancy(
        device != nullptr ? *device : kNoDevice, static_cast<uint32_t>(k.block.volume()),
        k.launch_config->registers_per_thread, k.launch_config->shared_bytes_per_block);
  }
  if (!k.region && k.grid.volume() > 0) k.wave_blocks = WaveBlocks(sm_count, k.theoretical);
  if (k.has(m::kWarpsActivePct) || k.has(m::kWarpsActivePerCycle)) {
    k.achieved_occupancy =
        AchievedOccupancy{k.value(m::kWarpsActivePct), k.value(m::kWarpsActivePerCycle)};
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
  a.shared_ld_conflicts_per_inst =
      Ratio(k.value(m::kSharedLdBankConflicts), k.value(m::kSharedLdInst));
  a.shared_st_conflicts_per_inst =
      Ratio(k.value(m::kSharedStBankConflicts), k.value(m::kSharedStInst));
  a.global_ld_sectors_per_request =
      Ratio(k.value(m::kGlobalLdSectors), k.value(m::kGlobalLdRequests));
  a.global_st_sectors_per_request =
      Ratio(k.value(m::kGlobalStSectors), k.value(m::kGlobalStRequests));
}

namespace {

// The busiest of the measured parts of a breakdown, and how many were measured.
std::pair<double, int> BusiestPart(const KernelCounters& k, const std::vector<std::string>& parts) {
  double busiest = 0;
  int measured = 0;
  for (const std::string& metric : parts) {
    if (!k.has(metric)) continue;
    ++measured;
    busiest = std::max(busiest, k.value(metric));
  }
  return {busiest, measured};
}

// A level measured by either of two metrics (the sol set's, else the verdict set's).
bool TakeLevel(const KernelCounters& k, const char* first, const char* second, double* value) {
  const char* metric = k.has(first) ? first : k.has(second) ? second : nullptr;
  if (metric == nullptr) return false;
  *value = k.value(metric);
  return true;
}

}  // namespace

void DeriveSpeedOfLight(KernelCounters& k) {
  const char* fma = k.has(m::kFmaPipePct) ? m::kFmaPipePct : m::kLegacyFmaPipePct;
  const char* dram =
      k.has(m::kDramThroughputPct) ? m::kDramThroughputPct : m::kLegacyDramThroughputPct;
  const char* l1 = k.has(m::kL1ThroughputPct) ? m::kL1ThroughputPct : m::kLegacyL1ThroughputPct;
  const std::pair<const char*, const char*> units[] = {
      {"SM", m::kSmThroughputPct},        {"DRAM", dram},
      {"L2", m::kL2ThroughputPct},        {"L1", l1},
      {"tensor pipe", m::kTensorPipePct}, {"FMA pipe", fma},
      {"FP64 pipe", m::kFp64PipePct},     {"issue", m::kIssuePct}};
  const auto [sm_part, sm_parts] = BusiestPart(k, m::SmThroughputParts());
  const auto [memory_part, memory_parts] = BusiestPart(k, m::MemoryThroughputParts());
  bool measured = k.has(m::kMemThroughputPct) || sm_parts > 0 || memory_parts > 0;
  std::string highest_unit;
  double highest = -1;
  for (const auto& [unit, metric] : units) {
    if (!k.has(metric)) continue;
    measured = true;
    if (k.value(metric) > highest) highest = k.value(metric), highest_unit = unit;
  }
  if (!measured) return;
  SpeedOfLight& s = k.sol.emplace();
  auto take = [&](const char* metric, bool* has, double* value) {
    *has = k.has(metric);
    *value = k.value(metric);
  };
  take(m::kSmThroughputPct, &s.has_sm, &s.sm_pct);
  take(m::kMemThroughputPct, &s.has_memory, &s.memory_pct);
  if (!s.has_sm && sm_parts > 0) s.has_sm = true, s.sm_pct = sm_part, s.sm_parts = sm_parts;
  if (!s.has_memory && memory_parts > 0) {
    s.has_memory = true, s.memory_pct = memory_part, s.memory_parts = memory_parts;
  }
  s.has_dram = TakeLevel(k, dram, m::kDramCyclesActivePct, &s.dram_pct);
  s.has_l2 = k.has(m::kL2ThroughputPct);
  s.l2_pct = k.value(m::kL2ThroughputPct);
  if (!s.has_l2 && (k.has(m::kL2ToXbarPct) || k.has(m::kXbarToL2Pct))) {
    s.has_l2 = true;
    s.l2_pct = std::max(k.value(m::kL2ToXbarPct), k.value(m::kXbarToL2Pct));
  }
  s.has_l1 = TakeLevel(k, l1, m::kL1LsuWavefrontsPct, &s.l1_pct);
  take(m::kTensorPipePct, &s.has_tensor_pipe, &s.tensor_pipe_pct);
  take(fma, &s.has_fma_pipe, &s.fma_pipe_pct);
  take(m::kFp64PipePct, &s.has_fp64_pipe, &s.fp64_pipe_pct);
  s.has_issue = TakeLevel(k, m::kIssuePct, m::kInstExecutedPct, &s.issue_pct);
  if (k.has(m::kIssuePct) && k.has(m::kInstExecutedPct)) {
    s.issue_pct = std::max(s.issue_pct, k.value(m::kInstExecutedPct));
  }
  // The busiest unit, the parts included (a level measured only by its parts).
  const std::pair<const char*, std::pair<bool, double>> seen[] = {
      {"DRAM", {s.has_dram, s.dram_pct}},
      {"L2", {s.has_l2, s.l2_pct}},
      {"L1", {s.has_l1, s.l1_pct}},
      {"issue", {s.has_issue, s.issue_pct}}};
  for (const auto& [unit, v] : seen) {
    if (v.first && v.second > highest) highest = v.second, highest_unit = unit;
  }
  s.highest_unit = std::move(highest_unit);
}

// The units the verdict weighs: the SM's pipes and issue when measured (else FLOPs
// against the dominant roof), and each memory level.
std::vector<UnitUse> VerdictUnits(const KernelCounters& k) {
  std::vector<UnitUse> units;
  const std::pair<Unit, const char*> pipes[] = {{Unit::kTensorPipe, m::kTensorPipePct},
                                                {Unit::kFmaPipe, m::kFmaPipePct},
                                                {Unit::kFmaPipe, m::kLegacyFmaPipePct},
                                                {Unit::kFp64Pipe, m::kFp64PipePct}};
  for (const auto& [pipe_unit, metric] : pipes) {
    const Unit unit = pipe_unit;  // a lambda may not capture a structured binding (C++17)
    const bool seen =
        std::any_of(units.begin(), units.end(), [&](const UnitUse& u) { return u.unit == unit; });
    if (k.has(metric) && !seen) units.push_back({unit, k.value(metric)});
  }
  // Issue: the busier of issue and instructions executed (SpeedOfLight::issue_pct).
  if (k.sol && k.sol->has_issue) units.push_back({Unit::kIssue, k.sol->issue_pct});
  if (units.empty() && k.pct_compute) units.push_back({Unit::kCompute, *k.pct_compute});
  // Memory levels: % of roof from bytes (roofline), else the parts of memory %.
  const SpeedOfLight* s = k.sol ? &*k.sol : nullptr;
  if (k.pct_dram) {
    units.push_back({Unit::kDram, *k.pct_dram});
  } else if (s && s->has_dram && k.sol->memory_parts > 0) {
    units.push_back({Unit::kDram, s->dram_pct});
  }
  if (k.pct_l2) {
    units.push_back({Unit::kL2, *k.pct_l2});
  } else if (s && s->has_l2 && s->memory_parts > 0) {
    units.push_back({Unit::kL2, s->l2_pct});
  }
  if (k.pct_l1) {
    units.push_back({Unit::kL1, *k.pct_l1});
  } else if (s && s->has_l1 && s->memory_parts > 0) {
    units.push_back({Unit::kL1, s->l1_pct});
  }
  return units;
}

VerdictEvidence EvidenceOf(const KernelCounters& k) {
  VerdictEvidence e;
  if (!k.stalls.empty()) e.top_stall = {{k.stalls.front().reason, k.stalls.front().percent}};
  if (k.memory) {
    e.shared_conflicts_per_inst =
        std::max(k.memory->shared_ld_conflicts_per_inst, k.memory->shared_st_conflicts_per_inst);
  }
  if (k.achieved_occupancy) e.achieved_occupancy_pct = k.achieved_occupancy->percent;
  if (k.theoretical.valid) e.theoretical_occupancy_pct = k.theoretical.percent;
  return e;
}

// The tensor precisions with a roof on this GPU whose FLOPs were not measured, when
// compute is judged by FLOPs (no pipe % measured).
std::vector<Precision> UnmeasuredTensor(const KernelCounters& k, const Ceilings& c,
                                        const std::vector<UnitUse>& units) {
  std::vector<Precision> out;
  for (const UnitUse& u : units) {
    if (!IsMemoryUnit(u.unit) && u.unit != Unit::kCompute) return out;  // pipes measured
  }
  for (Precision p : kAllPrecisions) {
    if (IsTensor(p) && !k.flops_of(p).measured && PeakFlopsPerCycle(c, p) > 0) out.push_back(p);
  }
  return out;
}

Verdict VerdictOf(const KernelCounters& k, const Ceilings& c) {
  VerdictInputs in;
  if (k.sol && k.sol->has_sm && k.sol->has_memory) {
    in.sm_pct = k.sol->sm_pct;
    in.memory_pct = k.sol->memory_pct;
    in.sol_from_parts = k.sol->sm_parts > 0 || k.sol->memory_parts > 0;
  }
  in.units = VerdictUnits(k);
  in.precision = k.dominant;
  // The tensor pipe's precision: the tensor precision with the highest % of roof.
  double best = 0;
  for (Precision p : kAllPrecisions) {
    const PrecisionFlops& f = k.flops_of(p);
    const double score = f.pct_of_peak > 0 ? f.pct_of_peak : f.flops * 1e-30;
    if (IsTensor(p) && f.flops > 0 && score > best) best = score, in.tensor_precision = p;
  }
  in.counters_measured = k.duration_ns > 0 || !k.values.empty();
  in.grid_blocks = k.grid.volume();
  in.wave_blocks = k.wave_blocks;
  if (k.has(m::kDramBytes) && k.total_flops > 0) in.ai_dram = k.ai_dram;
  in.ridge_dram = k.ridge_dram;
  in.evidence = EvidenceOf(k);
  in.unmeasured_tensor = UnmeasuredTensor(k, c, in.units);
  in.partial = !k.complete();
  return ComputeVerdict(in);
}

}  // namespace

void DeriveCounters(KernelCounters& k, const Ceilings& c, const model::DeviceInfo* device) {
  DeriveRoofline(k);
  DeriveCompute(k, c);
  DeriveMemoryUtilisation(k, c);
  DeriveOccupancy(k, device);
  DeriveStalls(k);
  DeriveMemoryAccess(k);
  DeriveSpeedOfLight(k);
  k.verdict = VerdictOf(k, c);
}

}  // namespace cuscope::analysis
