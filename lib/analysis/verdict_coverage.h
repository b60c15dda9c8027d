// How much of the GPU kernel time the verdicts cover: the kernel time of the
// signatures with a verdict over the kernel time of every kernel signature
// (docs/counters.md, "In the reports"). Pure functions, no I/O.
#ifndef CUSCOPE_LIB_ANALYSIS_VERDICT_COVERAGE_H_
#define CUSCOPE_LIB_ANALYSIS_VERDICT_COVERAGE_H_

#include <cstdint>
#include <vector>

#include "lib/analysis/kernel_counters.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// Kernel signatures (device, name, grid, block) of the kernel records and of the
// counter sets; regions measured as a whole are not kernels and are left out. Each
// signature weighs its kernel time (KernelGroup::kernel_ns, the kernels table's rule),
// so kernel_ns is the profile's kernel time (Summary::kernel_ns); a signature with sets
// and no kernel records has none.
struct VerdictCoverage {
  uint64_t kernel_ns = 0;   // every kernel signature's time: the kernel time
  uint64_t covered_ns = 0;  // the covered signatures' time
  uint64_t signatures = 0;  // every kernel signature
  // Covered: a complete measurement (KernelCounters::complete) and a verdict other than
  // unknown. Every measured signature is covered, partial or unknown.
  uint64_t covered = 0;
  uint64_t measured = 0;  // with counter sets
  uint64_t partial = 0;   // measured, no set complete: verdict unknown
  uint64_t unknown = 0;   // complete, verdict unknown
  uint64_t not_measured() const { return signatures - measured; }
  // covered_ns / kernel_ns x 100; 0 without kernel time.
  double percent() const;
};

// Whether a signature's verdict counts for the coverage.
bool Covered(const KernelCounters& k);

// `counters` is AnalyzeCounters(profile).
VerdictCoverage CoverageOf(const model::Profile& profile,
                           const std::vector<KernelCounters>& counters);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_VERDICT_COVERAGE_H_
