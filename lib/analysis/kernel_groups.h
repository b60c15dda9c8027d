// Kernel records grouped by signature, with the kernel time each group counts for:
// shared by the counter analysis (AnalyzeCounters) and the verdicts' coverage
// (CoverageOf), so that both weigh a signature by kernel time as the kernels table
// does (analysis::KernelTimeMask): the groups' kernel_ns add up to Summary::kernel_ns.
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
  // The group's share of kernel time: its timed launches (KernelTimeMask) and the sum
  // of their durations.
  uint64_t timed = 0;
  uint64_t kernel_ns = 0;
  uint32_t registers = 0;
  uint32_t shared = 0;
  bool config_known = false;  // from a CUPTI record (one made from a launch has no registers)
};

// The profile's kernel records by KernelKey.
absl::flat_hash_map<KernelKey, KernelGroup> GroupKernels(const model::Profile& p);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_KERNEL_GROUPS_H_
