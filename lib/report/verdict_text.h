// The verdict on a kernel signature in words, from the analysis' evidence
// (lib/analysis/verdict.h): one line, in numbers.
#ifndef CUSCOPE_LIB_REPORT_VERDICT_TEXT_H_
#define CUSCOPE_LIB_REPORT_VERDICT_TEXT_H_

#include <string>

#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/verdict.h"

namespace cuscope::report {

// "latency-bound (small grid)" when the grid is under one wave, else VerdictName.
std::string VerdictLabel(const analysis::Verdict& v);

// The verdict's reason, e.g.
//   "DRAM at 90% of peak, FP32 at 1%: DRAM-bound; AI 0.17 FLOP/B (DRAM), ridge 14"
//   "every unit under 60% of peak (FP32 at 3%, DRAM at 0.3%): latency-bound; grid of
//    1 block < one wave of 4224 (small grid)"
// A bound verdict names the limiter first, then compute, DRAM and each level at or
// above the threshold.
std::string VerdictReason(const analysis::Verdict& v);

// The reason line of a signature: VerdictReason, then for a region the time of its
// kernels, e.g. "; its kernels run 10 us of GPU time per instance (2 traced): 100.0
// TFLOP/s while they run (FP32 at 84% of peak)".
std::string CountersReason(const analysis::KernelCounters& k);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_VERDICT_TEXT_H_
