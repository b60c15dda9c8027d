#include "lib/analysis/compare_samples.h"

#include <algorithm>
#include <map>
#include <utility>

namespace cuscope::analysis {

std::vector<SampledChange> CompareSampled(const GpuSampleAnalysis& base,
                                          const GpuSampleAnalysis& next) {
  std::map<std::pair<uint32_t, std::string>, const SampledKernel*> before;
  for (const SampledKernel& k : base.kernels) {
    if (k.rates.samples > 0) before[{k.device_id, k.name}] = &k;
  }
  std::vector<SampledChange> out;
  for (const SampledKernel& k : next.kernels) {
    if (k.rates.samples == 0) continue;
    auto it = before.find({k.device_id, k.name});
    if (it == before.end()) continue;
    SampledChange c;
    c.device_id = k.device_id;
    c.name = k.name;
    c.base_kernel_ns = it->second->kernel_ns;
    c.next_kernel_ns = k.kernel_ns;
    c.base = it->second->rates;
    c.next = k.rates;
    c.base_verdict = it->second->verdict;
    c.next_verdict = k.verdict;
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const SampledChange& a, const SampledChange& b) {
    return a.next_kernel_ns > b.next_kernel_ns;
  });
  return out;
}

}  // namespace cuscope::analysis
