// Rotate's time budget (CounterOptions::rotate_budget_pct): its sets take at most B
// percent of the wall time outside them. Pure: the caller passes the clock.
//
// A set is charged its own wall time, from before its counter image is prepared to the
// end of the launch call that decoded it (decoding and evaluation included); sets of
// two contexts at once are each charged (the budget errs on the strict side). The
// clock starts when the first set begins: the time before (model building, warm-up) is
// not credit. A set may begin only while the time charged, plus the longest of the
// last few sets (the guess of the next one's cost), stays within B percent of the time
// outside sets. A set longer than those can still take the share over B; a long pause
// without sets (an evaluation, a checkpoint) is time outside them, and sets may then
// follow each other until it is spent.
#ifndef CUSCOPE_LIB_COLLECT_SET_BUDGET_H_
#define CUSCOPE_LIB_COLLECT_SET_BUDGET_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace cuscope::collect {

class SetBudget {
 public:
  explicit SetBudget(int pct) : pct_(pct > 0 ? pct : 0) {}
  bool enabled() const { return pct_ > 0; }

  // Whether a set may begin at `now_ns`; counts a wait when not.
  bool Allows(uint64_t now_ns);
  // The earliest time a set may begin (0: now, before the first set). Kept, not
  // recomputed: Allows runs at every launch's exit while the budget is spent.
  uint64_t AllowedAt() const { return allowed_at_; }
  // The time is `now_ns` (the summary's share counts up to the latest time seen).
  void Observe(uint64_t now_ns) {
    if (now_ns > last_ns_) last_ns_ = now_ns;
  }
  // A set begins (the clock starts at the first).
  void Began(uint64_t now_ns);
  // A set that began at `began_ns` is over at `now_ns`: its time is charged.
  void Charge(uint64_t began_ns, uint64_t now_ns);

  uint64_t charged_ns() const { return charged_ns_; }
  uint64_t waits() const { return waits_; }
  // The guess of the next set's cost: the longest of the last kRecent sets.
  uint64_t NextSetNs() const;
  // "sets took 8.2 s, 26% of the time outside them (budget 25%); 577161 launches
  // passed while it was spent and the callbacks on"; "" without a budget or before the
  // first set.
  std::string Describe() const;

  static constexpr size_t kRecent = 4;

 private:
  // AllowedAt from the charges so far (after each Began of the first set and Charge).
  void Recompute();

  int pct_;
  uint64_t allowed_at_ = 0;
  uint64_t start_ns_ = 0;  // the first set's beginning: the clock's zero
  uint64_t last_ns_ = 0;   // the latest time seen
  uint64_t charged_ns_ = 0;
  std::array<uint64_t, kRecent> recent_{};  // the last sets' costs, a ring
  size_t sets_ = 0;
  uint64_t waits_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_SET_BUDGET_H_
