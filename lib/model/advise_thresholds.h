// The advisor's thresholds (lib/analysis/advise.h): plain data whose initializers
// are the defaults. Each member is one setting (CUSCOPE_ADVISE_*, lib/config's
// table, docs/configuration.md), so a threshold is never a constant in a rule.
#ifndef CUSCOPE_LIB_MODEL_ADVISE_THRESHOLDS_H_
#define CUSCOPE_LIB_MODEL_ADVISE_THRESHOLDS_H_

#include <cstdint>

namespace cuscope::model {

struct AdviseThresholds {
  // Findings that could save less than this % of their basis are left out.
  double min_gain_pct = 0.5;
  // Severity: high at or above high_pct of the basis, medium at or above medium_pct.
  double high_pct = 10;
  double medium_pct = 3;
  // GPU idle gaps shorter than this are not counted as gaps.
  double min_gap_us = 100;
  // GPU utilization per window of this length; windows under low_util_pct are low.
  double util_window_ms = 100;
  double low_util_pct = 50;
  // Synchronizing calls: a device-to-host copy of at most this many bytes is a
  // small read (.item()); min_repeats of them (or of one sync call) make a loop.
  uint64_t small_copy_bytes = 4096;
  int64_t min_repeats = 10;
  // Pinned host bandwidth (GB/s) when the profile has no pinned copy of 1 MiB or more
  // in the same direction to measure it from.
  double pinned_gbps = 50;
  // Kernels shorter than this are launch-bound; min_tiny_kernels of them make a finding.
  double launch_us = 5;
  int64_t min_tiny_kernels = 100;
  // A first region instance slower than first_factor x the median of the others.
  double first_factor = 2;
  // Kernel rules from counters.
  double bank_conflicts = 1;        // shared-memory conflicts per shared instruction
  double sectors_per_request = 20;  // global sectors per request (4 is ideal for 4-byte words)
  double low_occupancy_pct = 25;    // achieved (else theoretical) occupancy
  double tail_pct = 20;             // SM time left idle by a small grid or the last wave
  double fp32_gemm_pct = 30;        // FP32 roof % of a kernel with no tensor op
  double fp64_pct = 1;              // FP64 share of a kernel's FLOPs in an FP32 program
  double aligned_gemm_pct = 60;     // tensor roof % of an aligned GEMM, when none to compare
  double stall_pct = 30;            // top stall reason's share of warp cycles
};

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_ADVISE_THRESHOLDS_H_
