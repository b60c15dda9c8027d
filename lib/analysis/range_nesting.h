// A subset of a profile's ranges nested per thread by time containment, for the
// question "which range of the subset encloses time t on thread T". Ranges nest as
// regions do (regions.h): by containment on their (process, thread), `depth` not
// trusted. Build O(R log R); a lookup O(log R) plus the nesting depth.
#ifndef CUSCOPE_LIB_ANALYSIS_RANGE_NESTING_H_
#define CUSCOPE_LIB_ANALYSIS_RANGE_NESTING_H_

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

class RangeNesting {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;
  // `member(i)` says whether ranges[i] belongs to the subset; ranges without usable
  // times (start 0, end before start) never do.
  template <typename Member>
  RangeNesting(const std::vector<model::RangeRecord>& ranges, Member member) : ranges_(ranges) {
    parent_.assign(ranges.size(), kNone);
    for (uint32_t i = 0; i < ranges.size(); ++i) {
      if (ranges[i].start_ns != 0 && ranges[i].end_ns >= ranges[i].start_ns && member(i)) Add(i);
    }
    Nest();
  }
  // The innermost member range on (process, thread) with start <= t <= end, or kNone.
  uint32_t Innermost(uint32_t process_id, uint32_t thread_id, uint64_t t) const;
  // Of the innermost member ranges enclosing t on the other threads of `process_id`
  // (all but `thread_id`), the one that started first, or kNone.
  uint32_t EarliestElsewhere(uint32_t process_id, uint32_t thread_id, uint64_t t) const;
  // The innermost member range enclosing member range `i`, or kNone.
  uint32_t Parent(uint32_t i) const { return i < parent_.size() ? parent_[i] : kNone; }
  // Every member range, thread by thread (in order of each thread's first member
  // range), each thread's by (start asc, end desc): a range after those enclosing it.
  const std::vector<uint32_t>& order() const { return order_; }

 private:
  struct Thread {
    std::vector<uint32_t> ranges;  // (start asc, end desc)
    std::vector<uint64_t> starts;
  };
  void Add(uint32_t i);
  void Nest();
  uint32_t InnermostIn(const Thread& thread, uint64_t t) const;

  const std::vector<model::RangeRecord>& ranges_;
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> order_;
  absl::flat_hash_map<uint64_t, uint32_t> thread_index_;  // (process, thread) -> threads_
  std::vector<Thread> threads_;
};

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_RANGE_NESTING_H_
