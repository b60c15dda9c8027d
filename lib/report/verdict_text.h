// The verdict on a kernel signature in words, from the analysis' evidence
// (lib/analysis/verdict.h): one line, in numbers.
#ifndef CUSCOPE_LIB_REPORT_VERDICT_TEXT_H_
#define CUSCOPE_LIB_REPORT_VERDICT_TEXT_H_

#include <string>

#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/verdict.h"
#include "lib/analysis/verdict_coverage.h"

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
// A partial measurement's reason: "partial measurement (3 of 7 passes): verdict
// unknown".
std::string CountersReason(const analysis::KernelCounters& k);

// How a signature was measured: its strategies, passes and launches, e.g.
//   "kernel replay, 3 passes, 1 launch"
//   "rotate, 7 passes over 7 launches"  (one launch a pass)
//   "rotate, 7 passes over 14 launches (2 samples)"
//   "region, 3 passes over 3 instances"
// A partial one says what it lacks first: "partial: 3 of 7 passes (rotate, 3
// launches)", "partial: 33 of 35 metrics (kernel replay, 7 passes, 1 launch)".
std::string MeasurementText(const analysis::KernelCounters& k);

// "verdicts cover 93.9% of GPU kernel time (96 of 101 signatures)", and when some
// signatures have none, why: "(90 of 101 signatures; 5 not measured, 2 partial, 4
// verdict unknown)". The percentage reads 100.0 only when every signature's time is
// covered (">99.9" when nearly), 0.0 only when none is ("<0.1").
std::string CoverageLine(const analysis::VerdictCoverage& c);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_VERDICT_TEXT_H_
