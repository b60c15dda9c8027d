// Findings of the advisor (lib/analysis/advise.h): what a profile says to fix, as
// plain data. Each finding names its rule, what fixing it could save (the estimated
// gain, like ncu's "estimated speedup"), the numbers it rests on, where it happens
// and what to do. Stored in the profile's findings tables (docs/profile-format.md).
#ifndef CUSCOPE_LIB_MODEL_FINDING_H_
#define CUSCOPE_LIB_MODEL_FINDING_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace cuscope::model {

// From the estimated gain as % of its basis (AdviseThresholds' high_pct, medium_pct).
enum class Severity : uint8_t { kLow = 0, kMedium = 1, kHigh = 2 };
const char* SeverityName(Severity s);  // "low", "medium", "high"

// What the gain is a share of: the run's wall time (timeline rules) or the GPU's
// kernel time (kernel rules, whose gain is GPU time).
enum class GainBasis : uint8_t { kWall = 0, kGpu = 1 };
const char* GainBasisName(GainBasis b);  // "wall", "gpu"

// A stream or thread id that does not apply.
inline constexpr uint32_t kNoId = 0xffffffffu;

struct Finding {
  std::string rule;  // "gpu_idle_gaps", "shared_bank_conflicts", ...
  Severity severity = Severity::kLow;
  double gain_ns = 0;   // estimated time to gain
  double gain_pct = 0;  // gain_ns as % of the basis
  GainBasis basis = GainBasis::kWall;
  std::string summary;  // what was seen, one line with its numbers
  std::string advice;   // what to do, one or two sentences
  // Where: each empty, 0 or kNoId when it does not apply.
  std::string kernel;                 // demangled kernel name
  std::string region;                 // region path, "step/forward"
  uint64_t start_ns = 0, end_ns = 0;  // the time range (CUPTI clock) most affected
  uint32_t device_id = 0;
  uint32_t stream_id = kNoId;
  uint32_t thread_id = kNoId;
  // The evidence, as named numbers ("gaps", "longest_gap_ns", ...), in rule order.
  std::vector<std::pair<std::string, double>> evidence;
  bool operator==(const Finding& o) const;
};

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_FINDING_H_
