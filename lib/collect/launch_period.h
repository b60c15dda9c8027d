// The period of a context's launch sequence, for rotate's windows (planner.h): a
// training loop launches the same kernels in the same order every step, so pass k+1
// of a set started exactly one period (or m periods) after pass k sees the same
// kernel at range i. Pure.
#ifndef CUSCOPE_LIB_COLLECT_LAUNCH_PERIOD_H_
#define CUSCOPE_LIB_COLLECT_LAUNCH_PERIOD_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cuscope::collect {

struct Period {
  size_t length = 0;     // launches per period; 0: none found
  size_t explained = 0;  // launches back from the last that repeat with this period
};

// The signature ids (small integers) of a context's last launches, oldest first.
class LaunchHistory {
 public:
  explicit LaunchHistory(size_t capacity) : ids_(capacity == 0 ? 1 : capacity) {}

  void Push(uint32_t id);
  // Forgets the launches so far (their count stays in total()): launches went by
  // unseen, and the ones before say nothing of where the sequence now is.
  void Clear() {
    size_ = 0;
    next_ = 0;
  }
  size_t size() const { return size_; }
  size_t capacity() const { return ids_.size(); }
  uint64_t total() const { return total_; }
  // The i-th launch back from the last (0: the last). i < size().
  uint32_t Back(size_t i) const;
  // Distinct ids of the last `n` launches.
  std::vector<uint32_t> DistinctLast(size_t n) const;

  // The period of the sequence: for each length L up to `max_length` (and half the
  // history), how many launches back from the last satisfy id[t] == id[t-L] with at
  // most 1% exceptions; L qualifies when that reaches at least L (the last L launches
  // repeat the L before). The qualifying L that explains the longest stretch wins
  // (the smallest on a tie): a step's layers repeat too, but only for a part of the
  // step, the step's own period explains everything since warm-up, and its multiples
  // explain L fewer launches each.
  Period Detect(size_t max_length) const;
  // How many launches back from the last repeat with period `length` (1% exceptions).
  size_t Explained(size_t length) const;

 private:
  std::vector<uint32_t> ids_;  // ring buffer
  size_t next_ = 0;
  size_t size_ = 0;
  uint64_t total_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_LAUNCH_PERIOD_H_
