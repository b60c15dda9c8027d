// What follows from one signature's averaged counter values: FLOPs by precision,
// bytes, % of each roof per elapsed cycle, utilisation of each unit, occupancy,
// stalls, memory access quality, speed of light and the verdict. Used by
// AnalyzeCounters (lib/analysis/kernel_counters.h); docs/counters.md has the rules.
#ifndef CUSCOPE_LIB_ANALYSIS_COUNTER_DERIVE_H_
#define CUSCOPE_LIB_ANALYSIS_COUNTER_DERIVE_H_

#include "lib/analysis/ceilings.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// Fills every derived field of `k` from k.values (and k's signature and launch
// configuration); `device` may be null.
void DeriveCounters(KernelCounters& k, const Ceilings& c, const model::DeviceInfo* device);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COUNTER_DERIVE_H_
