#include "lib/model/metrics.h"

#include <algorithm>

namespace cuscope::metrics {

const std::vector<std::string>& StallReasons() {
  static const auto* reasons = new std::vector<std::string>{"long_scoreboard",
                                                            "barrier",
                                                            "mio_throttle",
                                                            "short_scoreboard",
                                                            "wait",
                                                            "math_pipe_throttle",
                                                            "lg_throttle",
                                                            "not_selected",
                                                            "selected",
                                                            "no_instruction",
                                                            "dispatch_stall",
                                                            "branch_resolving",
                                                            "drain",
                                                            "imc_miss",
                                                            "membar",
                                                            "misc",
                                                            "sleeping",
                                                            "tex_throttle",
                                                            "gmma"};
  return *reasons;
}

const std::vector<std::string>& SetNames() {
  static const auto* names = new std::vector<std::string>{"verdict", "roofline", "sol", "occupancy",
                                                          "stalls",  "memory",   "full"};
  return *names;
}

const std::vector<std::string>& SmThroughputParts() {
  static const auto* parts = new std::vector<std::string>{
      kSharedPipePct, kInstExecutedPct, kIssuePct, kTensorPipePct, kFmaPipePct, kFp64PipePct};
  return *parts;
}

const std::vector<std::string>& MemoryThroughputParts() {
  static const auto* parts = new std::vector<std::string>{
      kDramCyclesActivePct, kDramThroughputPct,
      kL1LsuWavefrontsPct,  kL2ToXbarPct,
      kXbarToL2Pct,         "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed"};
  return *parts;
}

namespace {

// The verdict's inputs in one pass on GH100 (cuscope metrics --chip=GH100 --set=verdict):
// the parts of SM % and memory % that decide ncu's class, the tensor pipe and issue
// that name the unit, occupancy, DRAM bytes, the elapsed cycles, clock and duration.
void AddVerdictSet(std::vector<std::string>& m) {
  m.insert(m.end(), {kDuration, kSmCyclesElapsed, kSmClock, kSharedPipePct, kInstExecutedPct,
                     kIssuePct, kTensorPipePct, kDramCyclesActivePct, kL1LsuWavefrontsPct,
                     kL2ToXbarPct, kXbarToL2Pct, kWarpsActivePct, kDramBytes});
}

}  // namespace

std::vector<std::string> SetMetrics(const std::string& set) {
  std::vector<std::string> m;
  // Every set that judges kernels carries the verdict's inputs.
  if (set == "verdict" || set == "roofline" || set == "full") AddVerdictSet(m);
  if (set == "roofline" || set == "full") {
    // FLOPs by precision, bytes by level and the ceilings' inputs. The speed of light
    // (ncu's SM % and memory % with the per-unit breakdown) is the `sol` set: 9 more
    // passes on GH100, too many for region counters and rotate (docs/counters.md).
    m.insert(m.end(), {kDuration, kSmCyclesElapsed, kFadd, kFmul, kFfma, kDadd, kDmul, kDfma, kHadd,
                       kHmul, kHfma, kTensorFp16, kTensorBf16, kTensorTf32, kTensorFp8, kTensorInt8,
                       kTensorFp64, kDramBytes, kL2Bytes, kL1Bytes, kSmClock, kDramClock, kL2Clock,
                       kL1Clock, kDramPeak, kL2Peak, kL1Peak, kFfmaPeak, kDfmaPeak, kHfmaPeak,
                       kTensorFp8DensePeak, kTensorFp64Peak,
                       // Before Ada (no FP8 path) the tensor roofs come from the FP16
                       // path's peak (analysis/ceilings.cc).
                       kTensorFp16Peak,
                       // L1 as % of peak without the sol set: bytes, and the LSU
                       // wavefronts that uncoalesced or broadcast access (naive SGEMM) adds.
                       kL1Pct, kL1WavefrontsPct});
  }
  if (set == "sol" || set == "full") {
    m.insert(m.end(),
             {kDuration, kSmThroughputPct, kMemThroughputPct, kDramThroughputPct, kL2ThroughputPct,
              kL1ThroughputPct, kTensorPipePct, kFmaPipePct, kFp64PipePct, kIssuePct});
  }
  if (set == "occupancy" || set == "full") {
    m.insert(m.end(), {kDuration, kWarpsActivePct, kWarpsActivePerCycle});
  }
  if (set == "stalls" || set == "full") {
    m.push_back(kDuration);
    m.push_back(kWarpsActive);
    for (const auto& r : StallReasons()) m.push_back(std::string(kStallPrefix) + r + ".avg");
  }
  if (set == "memory" || set == "full") {
    m.insert(m.end(), {kDuration, kSharedLdBankConflicts, kSharedStBankConflicts, kSharedLdInst,
                       kSharedStInst, kGlobalLdSectors, kGlobalLdRequests, kGlobalStSectors,
                       kGlobalStRequests});
  }
  // Keep the first occurrence of each name, in order.
  std::vector<std::string> unique;
  for (auto& name : m) {
    if (std::find(unique.begin(), unique.end(), name) == unique.end()) unique.push_back(name);
  }
  return unique;
}

std::vector<std::string> ExpandMetrics(const std::vector<std::string>& requested) {
  std::vector<std::string> out;
  for (const std::string& m : requested) {
    std::vector<std::string> set = SetMetrics(m);
    if (set.empty()) set.push_back(m);
    for (std::string& name : set) {
      if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    }
  }
  return out;
}

const std::vector<std::string>& DefaultSampledMetrics() {
  static const auto* const kMetrics = new std::vector<std::string>{
      kSampledSmCyclesElapsed, kSampledSmCyclesActive, kSampledTensorPct, kSampledDramPct,
      kSampledInstExecuted,    kSampledDramRead,       kSampledDramWrite, kSampledL2Bytes};
  return *kMetrics;
}

bool IsSampledRate(const std::string& metric) {
  return metric.find(".pct_of_peak") != std::string::npos ||
         metric.find(".per_") != std::string::npos || metric.find(".ratio") != std::string::npos;
}

}  // namespace cuscope::metrics
