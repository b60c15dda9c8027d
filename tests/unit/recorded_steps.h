// The kernel launches of a profile recorded on the H200, split by the NVTX range that
// was open at each launch (`step` in bench/device/gpt2_step.py): what the rotate tests
// (rotate_real_test.cc) and bench/rotate_bench.cc replay through the planner.
#ifndef CUSCOPE_TESTS_UNIT_RECORDED_STEPS_H_
#define CUSCOPE_TESTS_UNIT_RECORDED_STEPS_H_

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope {

// The profile's kernels in launch order (correlation id), one vector per instance of
// range `name` in time order, holding the kernels launched inside it; one vector with
// every kernel when the profile has no such range.
inline std::vector<std::vector<model::KernelRecord>> KernelsByRange(const model::Profile& p,
                                                                    const std::string& name) {
  std::map<uint32_t, uint64_t> launched_at;  // correlation id -> API call start
  for (const model::ApiRecord& a : p.api_calls) launched_at[a.correlation_id] = a.start_ns;
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const model::RangeRecord& r : p.ranges) {
    if (p.str(r.name) == name) spans.emplace_back(r.start_ns, r.end_ns);
  }
  std::sort(spans.begin(), spans.end());
  std::vector<model::KernelRecord> kernels = p.kernels;
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.correlation_id < b.correlation_id; });
  std::vector<std::vector<model::KernelRecord>> out(std::max<size_t>(1, spans.size()));
  for (const model::KernelRecord& k : kernels) {
    size_t at = 0;
    if (!spans.empty()) {
      const uint64_t t = launched_at[k.correlation_id];
      auto it = std::find_if(spans.begin(), spans.end(),
                             [t](const auto& s) { return s.first <= t && t <= s.second; });
      if (it == spans.end()) continue;
      at = it - spans.begin();
    }
    out[at].push_back(k);
  }
  return out;
}

}  // namespace cuscope

#endif  // CUSCOPE_TESTS_UNIT_RECORDED_STEPS_H_
