// GPU metrics of two profiles side by side (analysis/gpu_samples.h): for each kernel
// sampled in both (by device and name), its sampled rates and verdicts before and after,
// so that a diff says what a change did to what each kernel keeps busy.
#ifndef CUSCOPE_LIB_ANALYSIS_COMPARE_SAMPLES_H_
#define CUSCOPE_LIB_ANALYSIS_COMPARE_SAMPLES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/analysis/gpu_samples.h"

namespace cuscope::analysis {

struct SampledChange {
  uint32_t device_id = 0;
  std::string name;
  uint64_t base_kernel_ns = 0, next_kernel_ns = 0;
  SampledRates base, next;
  // Each side's verdict from its samples (SampledKernel::verdict), when it has one.
  std::optional<Verdict> base_verdict, next_verdict;
};

// Kernels holding samples in both, by the new profile's kernel time, largest first.
std::vector<SampledChange> CompareSampled(const GpuSampleAnalysis& base,
                                          const GpuSampleAnalysis& next);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COMPARE_SAMPLES_H_
