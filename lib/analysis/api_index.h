// The API call behind each correlation id: how kernels are tied to the thread and
// time that launched them (regions, PyTorch attribution, traces).
#ifndef CUSCOPE_LIB_ANALYSIS_API_INDEX_H_
#define CUSCOPE_LIB_ANALYSIS_API_INDEX_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// The API call that launched each correlation id: an index into
// profile.api_calls. Only calls with usable times (HasValidTimes) and a non-zero
// correlation id count; when a runtime and a driver call share an id, the runtime
// call wins. CUPTI's ids are dense, so lookups are usually a vector index.
class ApiByCorrelation {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;
  ApiByCorrelation() = default;  // finds nothing
  explicit ApiByCorrelation(const model::Profile& profile);
  uint32_t Find(uint32_t correlation_id) const {
    if (dense_) return correlation_id < index_.size() ? index_[correlation_id] : kNone;
    auto it = sparse_.find(correlation_id);
    return it == sparse_.end() ? kNone : it->second;
  }

 private:
  bool dense_ = true;
  std::vector<uint32_t> index_;
  absl::flat_hash_map<uint32_t, uint32_t> sparse_;
};

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_API_INDEX_H_
