// The advisor: the top-down workflow as ranked findings (model::Finding). Where the
// time goes on the timeline (GPU idle gaps, low utilization, synchronizations,
// small device-to-host reads, pageable copies, launch-bound stretches, the first
// iteration, the default stream), then why hot kernels are slow (their counters:
// bank conflicts, uncoalesced access, occupancy, waves, FP32 GEMM without tensor
// cores, FP64, the dominant stall). docs/advisor.md explains every rule and its
// estimate.
//
// GPU idle time is attributed to one rule each (a gap after a synchronizing call to
// it, a short gap before a tiny kernel to the launch-bound rule, ...), so the
// timeline findings' gains do not count the same nanosecond twice.
//
// Pure function: profile in, findings out; the thresholds are settings
// (model::AdviseThresholds). Unlike the rest of lib/analysis, findings carry their
// sentence (summary and advice): the rule that draws a conclusion also says it.
#ifndef CUSCOPE_LIB_ANALYSIS_ADVISE_H_
#define CUSCOPE_LIB_ANALYSIS_ADVISE_H_

#include <string>
#include <vector>

#include "lib/model/advise_thresholds.h"
#include "lib/model/finding.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// Every rule's findings above thresholds.min_gain_pct, ranked by estimated gain
// (descending; ties by rule id, then kernel name). With steps (NVTX ranges or scopes
// named like a step, lib/analysis/steps.h), the timeline rules run over start-up and
// over the loop apart, and start-up findings (IsStartupFinding) rank after the others.
std::vector<model::Finding> Advise(const model::Profile& profile,
                                   const model::AdviseThresholds& thresholds);

// Whether `f` is about start-up: what happened before the first step, or one-time
// warm-up (its evidence "startup" is 1).
bool IsStartupFinding(const model::Finding& f);

// The rule ids, in the order docs/advisor.md describes them.
const std::vector<std::string>& AdviseRuleIds();

// The profile's stored findings when it has them, else Advise(profile, thresholds).
std::vector<model::Finding> FindingsOf(const model::Profile& profile,
                                       const model::AdviseThresholds& thresholds);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_ADVISE_H_
