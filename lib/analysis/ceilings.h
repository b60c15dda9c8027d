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

// The floating-point precisions with a roof of their own.
enum class Precision : uint8_t { kFp64 = 0, kFp32, kFp16, kTensorBf16 };
const char* PrecisionName(Precision p);  // "FP64", "FP32", "FP16", "BF16 tensor"

// The roofs of one GPU, from the hardware: per-cycle peaks x measured clocks.
// A ceiling whose inputs were not measured is 0 and is not used.
struct Ceilings {
  uint32_t device_id = 0;
  double sm_clock_hz = 0;
  double peak_fp64_flops = 0;         // dfma peak x 2 x SM clock
  double peak_fp32_flops = 0;         // ffma peak x 2 x SM clock
  double peak_fp16_flops = 0;         // hfma (half2) peak x 4 x SM clock
  double peak_tensor_bf16_flops = 0;  // bf16 tensor ops peak / 2 (dense) x SM clock (ops = FLOPs)
  double peak_dram_bytes_per_s = 0;   // DRAM bytes/cycle peak x DRAM clock
  double peak_l2_bytes_per_s = 0;     // L2 bytes/cycle peak x L2 clock
  double peak_l1_bytes_per_s = 0;     // L1 bytes/cycle peak x L1 clock
  bool valid = false;                 // at least one ceiling is known
};

// The FLOP/s roof of one precision (0 when unknown).
double PeakFlops(const Ceilings& c, Precision p);

// Per metric: the value in profile.device_metrics for the device when present,
// else the median of that metric over the device's CounterSets.
Ceilings ComputeCeilings(const model::Profile& profile, uint32_t device_id);
// The ceilings of every device that has counter sets or device metrics, by id.
std::vector<Ceilings> ComputeAllCeilings(const model::Profile& profile);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_CEILINGS_H_
