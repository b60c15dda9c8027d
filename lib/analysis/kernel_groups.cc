#include "lib/analysis/kernel_groups.h"

#include "lib/analysis/summary.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {

uint64_t KernelGroup::RankTime() const {
  if (unmeasured > 0 && unmeasured < timed) {
    return model::SaturatingFromDouble(double(unmeasured_ns) / double(unmeasured) * double(timed));
  }
  return total_ns;
}

absl::flat_hash_map<KernelKey, KernelGroup> GroupKernels(const model::Profile& p) {
  absl::flat_hash_map<KernelKey, KernelGroup> kernels;
  for (const model::KernelRecord& r : p.kernels) {
    KernelGroup& g = kernels[KernelKey{r.device_id, r.name, r.mangled_name, r.grid.x, r.grid.y,
                                       r.grid.z, r.block.x, r.block.y, r.block.z}];
    ++g.launches;
    if (!g.config_known && !(r.flags & model::kKernelFromLaunch)) {
      g.config_known = true;
      g.registers = r.registers_per_thread;
      g.shared = r.static_shared_bytes + r.dynamic_shared_bytes;
    }
    if (!HasValidTimes(r)) continue;
    ++g.timed;
    g.total_ns += r.duration_ns();
    if (!(r.flags & model::kKernelCountersMeasured)) {
      ++g.unmeasured;
      g.unmeasured_ns += r.duration_ns();
    }
  }
  return kernels;
}

}  // namespace cuscope::analysis
