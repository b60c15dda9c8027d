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

// advise_phase.cc: start-up findings (with steps). The evidence that marks one.
inline constexpr char kStartupEvidence[] = "startup";
// Marks `f` as start-up: its summary opens with "Start-up (before the first 'step'): "
// (the first instance of a region: "Start-up (the first instance, one-time): "), the
// advice says it is paid once, and the evidence has kStartupEvidence = 1.
void MarkStartup(const Context& c, model::Finding& f);
// Marks `out[from...]` that are start-up: those made in the start-up phase, those
// located wholly before the first step (not about a kernel), and the first
// iteration's. Nothing without steps.
void MarkStartupFindings(const Context& c, std::vector<model::Finding>& out, size_t from);

// advise_gemm.cc, by kernel names alone (no counters): GEMM kernels whose names say
// they were built for operands aligned to less than 16 bytes (misaligned_gemm) or, for
// a tensor-core precision (BF16, FP16, TF32, FP8), for an architecture before sm_90 on
// an sm_90 or later GPU (old_arch_gemm), when their
// signatures have no counter sets. Their gain is a guess from the name, and they say
// that counters would confirm it.
void GemmNames(const Context& c, std::vector<model::Finding>& out);

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

// advise_source.cc: from PC samples, a kernel's hottest source line when most of its
// samples wait there for one reason with a known remedy (source_stalls).
void SourceStalls(const Context& c, std::vector<model::Finding>& out);

}  // namespace cuscope::analysis::advise

#endif  // CUSCOPE_LIB_ANALYSIS_ADVISE_RULES_H_
