// The advisor's rules (lib/analysis/advise.h), each appending its findings (those
// that clear min_gain_pct) to `out`. docs/advisor.md describes each.
#ifndef CUSCOPE_LIB_ANALYSIS_ADVISE_RULES_H_
#define CUSCOPE_LIB_ANALYSIS_ADVISE_RULES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/analysis/advise_context.h"
#include "lib/analysis/ceilings.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/model/finding.h"

namespace cuscope::analysis::advise {

// advise_first.cc: the first instance of a repeated region against the others.
// Returns the finding's span (0, 0 when none), whose idle gaps are then its own.
std::pair<uint64_t, uint64_t> FirstIteration(const Context& c, std::vector<model::Finding>& out);

// advise_idle.cc: the GPU's idle gaps by cause (after Context::AttributeGaps).
void IdleGaps(const Context& c, std::vector<model::Finding>& out);
void LowUtilization(const Context& c, std::vector<model::Finding>& out);
void SyncStalls(const Context& c, std::vector<model::Finding>& out);
void SmallReads(const Context& c, std::vector<model::Finding>& out);
void LaunchBound(const Context& c, std::vector<model::Finding>& out);

// advise_copies.cc: copies from pageable memory, memory operations on the default
// stream of a multi-stream context.
void PageableCopies(const Context& c, std::vector<model::Finding>& out);
void DefaultStream(const Context& c, std::vector<model::Finding>& out);

// advise_kernels.cc: the rules of each kernel signature with counters.
void KernelRules(const Context& c, std::vector<model::Finding>& out);

// advise_gemm.cc: a tensor-core GEMM (FP16, BF16, TF32, FP8) in a kernel for operands
// aligned to less than 16 bytes (CUTLASS's `alignN`, N elements of the kernel's dominant
// tensor precision).
struct Misalignment {
  int alignment = 0;      // elements, from the name; 0 when it does not say
  int element_bytes = 0;  // of the dominant tensor precision; 0 when not one of the four
  bool misaligned = false;
};
Misalignment MisalignmentOf(const KernelCounters& k);
// The best % of its roof that an aligned tensor-core GEMM reaches (a kernel named for a
// GEMM: "gemm", "nvjet", "xmma"), per device and tensor precision.
struct AlignedBest {
  uint32_t device_id = 0;
  Precision precision = Precision::kTensorBf16;
  double pct = 0;
  std::string kernel;
};
std::vector<AlignedBest> BestAlignedGemms(const std::vector<KernelCounters>& kernels);
// Fires when `k` is misaligned and under the best aligned kernel of its precision (else
// AdviseThresholds::aligned_gemm_pct); the gain is T x (1 - its % / that %).
bool MisalignedGemm(const Context& c, const KernelCounters& k,
                    const std::vector<AlignedBest>& aligned, std::vector<model::Finding>& out);

}  // namespace cuscope::analysis::advise

#endif  // CUSCOPE_LIB_ANALYSIS_ADVISE_RULES_H_
