#include "lib/collect/launch_period.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"

namespace cuscope::collect {

void LaunchHistory::Push(uint32_t id) {
  ids_[next_] = id;
  next_ = (next_ + 1) % ids_.size();
  size_ = std::min(size_ + 1, ids_.size());
  ++total_;
}

uint32_t LaunchHistory::Back(size_t i) const {
  return ids_[(next_ + ids_.size() - 1 - i) % ids_.size()];
}

std::vector<uint32_t> LaunchHistory::DistinctLast(size_t n) const {
  absl::flat_hash_set<uint32_t> seen;
  std::vector<uint32_t> out;
  for (size_t i = 0; i < n && i < size_; ++i) {
    if (seen.insert(Back(i)).second) out.push_back(Back(i));
  }
  return out;
}

size_t LaunchHistory::Explained(size_t length) const {
  // Exceptions allowed: 1% of the stretch. A stretch that is 8 exceptions past
  // that cannot recover: stop (a wrong length stops after a few comparisons).
  size_t mismatches = 0, best = 0;
  for (size_t i = 0; i + length < size_; ++i) {
    const size_t count = i + 1;
    if (Back(i) != Back(i + length)) ++mismatches;
    if (mismatches * 100 <= count) {
      best = count;
    } else if (mismatches * 100 > count + 800) {
      break;
    }
  }
  return best;
}

Period LaunchHistory::Detect(size_t max_length) const {
  Period best;
  const size_t longest = std::min(max_length, size_ / 2);
  for (size_t length = 1; length <= longest; ++length) {
    const size_t explained = Explained(length);
    if (explained >= length && explained > best.explained) best = Period{length, explained};
    // A longer period compares fewer launches: none can explain more than this.
    if (best.explained >= size_ - length) break;
  }
  return best;
}

}  // namespace cuscope::collect
