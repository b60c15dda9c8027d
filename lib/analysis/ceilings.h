// The roofs of each GPU: per-cycle peaks (measured by the counters) x measured
// clocks, like ncu's roofline section. A roof whose inputs were not measured is 0.
//
// Pure functions: profile in, ceilings out. The metric names are those of
// lib/model/metrics.h; docs/counters.md explains every rule used here.
#ifndef CUSCOPE_LIB_ANALYSIS_CEILINGS_H_
#define CUSCOPE_LIB_ANALYSIS_CEILINGS_H_

#include <cstdint>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::analysis {

// The precisions with a roof of their own: CUDA-core FP64/FP32/FP16 (SASS
// instruction counts) and the tensor cores by source precision.
enum class Precision : uint8_t {
  kFp64 = 0,
  kFp32,
  kFp16,
  kTensorFp16,
  kTensorBf16,
  kTensorTf32,
  kTensorFp8,
  kTensorInt8,
  kTensorFp64,
};
inline constexpr size_t kPrecisionCount = 9;
inline constexpr Precision kAllPrecisions[kPrecisionCount] = {
    Precision::kFp32,       Precision::kFp64,       Precision::kFp16,
    Precision::kTensorFp16, Precision::kTensorBf16, Precision::kTensorTf32,
    Precision::kTensorFp8,  Precision::kTensorInt8, Precision::kTensorFp64};
const char* PrecisionName(Precision p);  // "FP64", "FP32", "FP16", "BF16 tensor", ...
const char* PrecisionKey(Precision p);   // "fp64", "fp32", "fp16", "tensor_bf16", ...
bool IsTensor(Precision p);

// The roofs of one GPU, from the hardware: per-cycle peaks x measured clocks.
// A ceiling whose inputs were not measured is 0 and is not used.
struct Ceilings {
  uint32_t device_id = 0;
  double sm_clock_hz = 0;
  // Dense peak FLOPs per SM cycle of the whole GPU, and x SM clock (FLOP/s), by
  // Precision. CUDA cores: dfma, ffma peaks x 2, hfma (half2) x 4. Tensor cores:
  // docs/counters.md ("Ceilings"), from metrics::kTensorFp8DensePeak and friends.
  double flops_per_cycle[kPrecisionCount] = {};
  double peak_flops[kPrecisionCount] = {};
  double peak_dram_bytes_per_s = 0;  // DRAM bytes/cycle peak x DRAM clock
  double peak_l2_bytes_per_s = 0;    // L2 bytes/cycle peak x L2 clock
  double peak_l1_bytes_per_s = 0;    // L1 bytes/cycle peak x L1 clock
  bool valid = false;                // at least one ceiling is known
};

// The FLOP/s roof of one precision (0 when unknown), and its FLOPs per SM cycle.
double PeakFlops(const Ceilings& c, Precision p);
double PeakFlopsPerCycle(const Ceilings& c, Precision p);

// Per metric: the value in profile.device_metrics for the device when present,
// else the median of that metric over the device's CounterSets.
Ceilings ComputeCeilings(const model::Profile& profile, uint32_t device_id);
// The ceilings of every device that has counter sets or device metrics, by id.
std::vector<Ceilings> ComputeAllCeilings(const model::Profile& profile);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_CEILINGS_H_
