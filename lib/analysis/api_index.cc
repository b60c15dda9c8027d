#include "lib/analysis/api_index.h"

#include <algorithm>

#include "lib/analysis/summary.h"

namespace cuscope::analysis {

ApiByCorrelation::ApiByCorrelation(const model::Profile& profile) {
  const auto& apis = profile.api_calls;
  uint32_t max_id = 0;
  for (const model::ApiRecord& a : apis) max_id = std::max(max_id, a.correlation_id);
  // Dense when a vector indexed by id is at most a few times the number of calls.
  dense_ = uint64_t{max_id} <= 4 * uint64_t{apis.size()} + 4096;
  auto consider = [&](uint32_t& slot, uint32_t i) {
    if (slot == ApiByCorrelation::kNone || (apis[i].domain == model::ApiDomain::kRuntime &&
                                            apis[slot].domain != model::ApiDomain::kRuntime)) {
      slot = i;
    }
  };
  if (dense_) {
    index_.assign(apis.empty() ? 0 : size_t{max_id} + 1, ApiByCorrelation::kNone);
  } else {
    sparse_.reserve(apis.size());
  }
  for (uint32_t i = 0; i < apis.size(); ++i) {
    const model::ApiRecord& a = apis[i];
    if (a.correlation_id == 0 || !HasValidTimes(a)) continue;
    if (dense_) {
      consider(index_[a.correlation_id], i);
    } else {
      consider(sparse_.try_emplace(a.correlation_id, ApiByCorrelation::kNone).first->second, i);
    }
  }
}

}  // namespace cuscope::analysis
