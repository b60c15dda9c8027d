#include "lib/analysis/range_nesting.h"

#include <algorithm>

namespace cuscope::analysis {
namespace {

uint64_t ThreadKey(uint32_t process_id, uint32_t thread_id) {
  return (uint64_t{process_id} << 32) | thread_id;
}

}  // namespace

void RangeNesting::Add(uint32_t i) {
  const model::RangeRecord& r = ranges_[i];
  auto [it, inserted] = thread_index_.try_emplace(ThreadKey(r.process_id, r.thread_id),
                                                  static_cast<uint32_t>(threads_.size()));
  if (inserted) threads_.emplace_back();
  threads_[it->second].ranges.push_back(i);
}

void RangeNesting::Nest() {
  std::vector<uint32_t> stack;
  for (Thread& t : threads_) {
    std::sort(t.ranges.begin(), t.ranges.end(), [&](uint32_t a, uint32_t b) {
      const model::RangeRecord& ra = ranges_[a];
      const model::RangeRecord& rb = ranges_[b];
      if (ra.start_ns != rb.start_ns) return ra.start_ns < rb.start_ns;
      if (ra.end_ns != rb.end_ns) return ra.end_ns > rb.end_ns;
      if (ra.depth != rb.depth) return ra.depth < rb.depth;
      return a < b;
    });
    stack.clear();
    t.starts.reserve(t.ranges.size());
    for (uint32_t i : t.ranges) {
      const model::RangeRecord& r = ranges_[i];
      // Sorted by start, so the top encloses r exactly when it ends no earlier.
      while (!stack.empty() && ranges_[stack.back()].end_ns < r.end_ns) stack.pop_back();
      parent_[i] = stack.empty() ? kNone : stack.back();
      stack.push_back(i);
      t.starts.push_back(r.start_ns);
      order_.push_back(i);
    }
  }
}

uint32_t RangeNesting::Innermost(uint32_t process_id, uint32_t thread_id, uint64_t t) const {
  auto it = thread_index_.find(ThreadKey(process_id, thread_id));
  if (it == thread_index_.end()) return kNone;
  return InnermostIn(threads_[it->second], t);
}

uint32_t RangeNesting::EarliestElsewhere(uint32_t process_id, uint32_t thread_id,
                                         uint64_t t) const {
  uint32_t best = kNone;
  for (const auto& [key, index] : thread_index_) {
    if (key >> 32 != process_id || key == ThreadKey(process_id, thread_id)) continue;
    const uint32_t r = InnermostIn(threads_[index], t);
    if (r == kNone) continue;
    if (best == kNone || ranges_[r].start_ns < ranges_[best].start_ns ||
        (ranges_[r].start_ns == ranges_[best].start_ns && r < best)) {
      best = r;
    }
  }
  return best;
}

uint32_t RangeNesting::InnermostIn(const Thread& thread, uint64_t t) const {
  // The last range starting at or before t; it or one enclosing it holds t, if any does.
  auto pos = std::upper_bound(thread.starts.begin(), thread.starts.end(), t);
  if (pos == thread.starts.begin()) return kNone;
  uint32_t r = thread.ranges[static_cast<size_t>(pos - thread.starts.begin()) - 1];
  while (r != kNone && ranges_[r].end_ns < t) r = parent_[r];
  return r;
}

}  // namespace cuscope::analysis
