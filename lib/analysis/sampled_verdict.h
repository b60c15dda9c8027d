// The speed-of-light verdict of a kernel from its GPU metrics samples (gpu_samples.h,
// CUPTI PM sampling) rather than from counters: what a kernel that the Range Profiler
// cannot measure gets, as those that run only inside CUDA graph launches (the Range
// Profiler gives no range per graph node under CUDA 13.0: docs/performance.md,
// "Kernels inside CUDA graphs"). Pure functions, no I/O.
//
// SM % is the busiest sampled SM part (instruction issue, the tensor pipe) and memory %
// the busiest sampled memory level (DRAM % of peak; L2 bytes/s over the L2 ceiling when
// the profile knows it): parts of ncu's breakdowns, so at least these values
// (Verdict::sol_from_parts, printed ">="). The FMA, ALU and LSU pipes are not sampled
// (a configuration must fit one pass: docs/gpu-metrics.md), so a kernel limited by one
// of them alone reads lower on the SM side than ncu's SM %.
#ifndef CUSCOPE_LIB_ANALYSIS_SAMPLED_VERDICT_H_
#define CUSCOPE_LIB_ANALYSIS_SAMPLED_VERDICT_H_

#include <cstdint>
#include <optional>

#include "lib/analysis/ceilings.h"
#include "lib/analysis/verdict.h"

namespace cuscope::analysis {

// What the verdict reads of a kernel's samples (gpu_samples.h, SampledRates), each
// unset when not sampled.
struct SampledParts {
  uint64_t samples = 0;
  std::optional<double> issue_pct, tensor_pct, dram_pct, l2_bytes_per_s;
  // The kernel's grid in blocks and the blocks of one wave on its device, when every
  // launch of the kernel had one grid and one launch configuration (0: unknown): a
  // latency-bound kernel with fewer blocks than a wave reads "small grid".
  uint64_t grid_blocks = 0, wave_blocks = 0;
};

// Fewer samples inside a kernel than this give it no sampled verdict.
inline constexpr uint64_t kMinSampledVerdictSamples = 3;

// The verdict from `parts` (a kernel's samples), or none when it holds fewer than
// kMinSampledVerdictSamples samples or lacks an SM part or a memory level. `ceilings`
// (may be null or invalid) gives the L2 peak.
std::optional<Verdict> SampledVerdict(const SampledParts& parts, const Ceilings* ceilings);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_SAMPLED_VERDICT_H_
