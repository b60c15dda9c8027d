// The advisor's rules (lib/analysis/advise.h), each appending its findings (those
// that clear min_gain_pct) to `out`. docs/advisor.md describes each.
#ifndef CUSCOPE_LIB_ANALYSIS_ADVISE_RULES_H_
#define CUSCOPE_LIB_ANALYSIS_ADVISE_RULES_H_

#include <vector>

#include "lib/analysis/advise_context.h"
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

}  // namespace cuscope::analysis::advise

#endif  // CUSCOPE_LIB_ANALYSIS_ADVISE_RULES_H_
