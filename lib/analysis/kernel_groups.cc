#include "lib/analysis/kernel_groups.h"

#include "lib/analysis/summary.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {

absl::flat_hash_map<KernelKey, KernelGroup> GroupKernels(const model::Profile& p) {
  absl::flat_hash_map<KernelKey, KernelGroup> kernels;
  const std::vector<uint8_t> timed = KernelTimeMask(p);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const model::KernelRecord& r = p.kernels[i];
    KernelGroup& g = kernels[KernelKey{r.device_id, r.name, r.mangled_name, r.grid.x, r.grid.y,
                                       r.grid.z, r.block.x, r.block.y, r.block.z}];
    ++g.launches;
    if (!g.config_known && !(r.flags & model::kKernelFromLaunch)) {
      g.config_known = true;
      g.registers = r.registers_per_thread;
      g.shared = r.static_shared_bytes + r.dynamic_shared_bytes;
    }
    if (!timed[i]) continue;
    ++g.timed;
    model::AddTo(g.kernel_ns, r.duration_ns());
  }
  return kernels;
}

}  // namespace cuscope::analysis
