#include "lib/analysis/verdict_coverage.h"

#include <set>
#include <string>
#include <tuple>

#include "lib/analysis/kernel_groups.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {
namespace {

// (device, name, grid x y z, block x y z).
using Signature =
    std::tuple<uint32_t, std::string, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>;

Signature SignatureOf(uint32_t device, const std::string& name, const model::Dim3& g,
                      const model::Dim3& b) {
  return {device, name, g.x, g.y, g.z, b.x, b.y, b.z};
}

}  // namespace

double VerdictCoverage::percent() const {
  return kernel_ns > 0 ? 100.0 * double(covered_ns) / double(kernel_ns) : 0;
}

bool Covered(const KernelCounters& k) {
  return !k.region && k.complete() && k.verdict.bound != Bound::kUnknown;
}

VerdictCoverage CoverageOf(const model::Profile& p, const std::vector<KernelCounters>& counters) {
  VerdictCoverage c;
  std::set<Signature> measured;
  for (const KernelCounters& k : counters) {
    if (k.region) continue;
    measured.insert(SignatureOf(k.device_id, k.name, k.grid, k.block));
    ++c.measured;
    if (Covered(k)) {
      ++c.covered;
      // A signature without kernel records has no kernel time (its time is an estimate).
      if (!k.time_estimated) model::AddTo(c.covered_ns, k.total_time_ns);
    } else if (!k.complete()) {
      ++c.partial;
    } else {
      ++c.unknown;
    }
  }
  // Kernel records join a measured signature as AnalyzeCounters joins them: by the
  // demangled name, else the mangled one.
  std::set<Signature> not_measured;
  for (const auto& [key, g] : GroupKernels(p)) {
    model::AddTo(c.kernel_ns, g.kernel_ns);
    const auto& [device, name_id, mangled_id, gx, gy, gz, bx, by, bz] = key;
    const model::Dim3 grid{gx, gy, gz}, block{bx, by, bz};
    const Signature by_name = SignatureOf(device, p.str(name_id), grid, block);
    const Signature by_mangled = SignatureOf(device, p.str(mangled_id), grid, block);
    const bool named = name_id != model::kEmptyString;
    bool found = measured.count(by_name) > 0;
    if ((!found || !named) && mangled_id != model::kEmptyString) {
      found = found || measured.count(by_mangled) > 0;
    }
    if (!found) not_measured.insert(named ? by_name : by_mangled);
  }
  c.signatures = c.measured + not_measured.size();
  return c;
}

}  // namespace cuscope::analysis
