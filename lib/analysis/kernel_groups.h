// Kernel records grouped by signature, with the kernel time each group counts for:
// shared by the counter analysis (AnalyzeCounters) and the verdicts' coverage
// (CoverageOf), so that both weigh a signature by the same time.
#ifndef CUSCOPE_LIB_ANALYSIS_KERNEL_GROUPS_H_
#define CUSCOPE_LIB_ANALYSIS_KERNEL_GROUPS_H_

#include <cstdint>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// (device, name id, mangled name id, grid x y z, block x y z).
using KernelKey = std::tuple<uint32_t, model::StringId, model::StringId, uint32_t, uint32_t,
                             uint32_t, uint32_t, uint32_t, uint32_t>;

struct KernelGroup {
  uint64_t launches = 0;
  uint64_t total_ns = 0;       // all launches with usable times
  uint64_t timed = 0;          // launches with usable times
  uint64_t unmeasured_ns = 0;  // launches without kKernelCountersMeasured
  uint64_t unmeasured = 0;
  uint32_t registers = 0;
  uint32_t shared = 0;
  bool config_known = false;  // from a CUPTI record (one made from a launch has no registers)
  // The kernel time the group counts for: when some launches were measured with
  // counters and some not, the unmeasured launches' mean x the timed launches
  // (measured launches are serialized and slowed); else the sum of all.
  uint64_t RankTime() const;
};

// The profile's kernel records by KernelKey.
absl::flat_hash_map<KernelKey, KernelGroup> GroupKernels(const model::Profile& p);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_KERNEL_GROUPS_H_
