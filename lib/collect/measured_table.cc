#include "lib/collect/measured_table.h"

#include "absl/hash/hash.h"

namespace cuscope::collect {
namespace {
// A kernel name as the table keeps it: 0 for none (then every record of the launch
// counts).
uint64_t NameKey(const std::string& name) {
  if (name.empty()) return 0;
  const uint64_t h = absl::Hash<std::string>()(name);
  return h == 0 ? 1 : h;
}
}  // namespace

void MeasuredTable::Mark(uint32_t correlation_id, const std::string& name) {
  const uint64_t key = NameKey(name);
  absl::MutexLock lock(&mu_);
  measured_.insert_or_assign(correlation_id, key);
}

void MeasuredTable::MarkCall(uint32_t correlation_id, const std::string& name) {
  const uint64_t key = NameKey(name);
  if (key == 0) return;  // nothing to tell CUPTI's kernels apart by
  absl::MutexLock lock(&mu_);
  calls_.insert_or_assign(correlation_id, key);
}

MeasuredLaunches::Kind MeasuredTable::Classify(uint32_t correlation_id,
                                               const std::string& kernel_name) const {
  uint64_t stored = 0;
  {
    absl::MutexLock lock(&mu_);
    auto it = measured_.find(correlation_id);
    if (it == measured_.end()) {
      auto call = calls_.find(correlation_id);
      if (call == calls_.end() || kernel_name.empty() || call->second == NameKey(kernel_name)) {
        return MeasuredLaunches::Kind::kNotMeasured;
      }
      return MeasuredLaunches::Kind::kProfilerKernel;
    }
    stored = it->second;
  }
  // A launch or a record without a name cannot be told apart: every record counts.
  if (stored == 0 || kernel_name.empty()) return MeasuredLaunches::Kind::kMeasured;
  return stored == NameKey(kernel_name) ? MeasuredLaunches::Kind::kMeasured
                                        : MeasuredLaunches::Kind::kProfilerKernel;
}

void MeasuredTable::Clear() {
  absl::MutexLock lock(&mu_);
  measured_.clear();
  calls_.clear();
}

}  // namespace cuscope::collect
