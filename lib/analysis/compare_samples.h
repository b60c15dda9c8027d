// GPU metrics of two profiles side by side (analysis/gpu_samples.h): for each kernel
// sampled in both (by device and name), its sampled rates before and after, so that a
// diff says what a change did to what each kernel keeps busy.
#ifndef CUSCOPE_LIB_ANALYSIS_COMPARE_SAMPLES_H_
#define CUSCOPE_LIB_ANALYSIS_COMPARE_SAMPLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/gpu_samples.h"

namespace cuscope::analysis {

struct SampledChange {
  uint32_t device_id = 0;
  std::string name;
  uint64_t base_kernel_ns = 0, next_kernel_ns = 0;
  SampledRates base, next;
};

// Kernels holding samples in both, by the new profile's kernel time, largest first.
std::vector<SampledChange> CompareSampled(const GpuSampleAnalysis& base,
                                          const GpuSampleAnalysis& next);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COMPARE_SAMPLES_H_
