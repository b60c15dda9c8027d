// Rotate's time budget (CounterOptions::rotate_budget_pct): its sets take at most B
// percent of the wall time outside them. Pure: the caller passes the clock.
//
// Time is charged while a set is in progress on any context (the union, not the sum),
// from a set's first pass to the end of the callback that ended it, so its decoding
// and evaluation count. The clock starts when the first set begins: the time before
// (model building, warm-up) is not credit. A set may begin only while the time
// charged, plus the longest set so far (the guess of the next one's cost), stays
// within B percent of the time outside sets. A set longer than any before can still
// take the share over B; a long pause without sets (an evaluation, a checkpoint) is
// time outside them, and sets may then follow each other until it is spent.
#ifndef CUSCOPE_LIB_COLLECT_SET_BUDGET_H_
#define CUSCOPE_LIB_COLLECT_SET_BUDGET_H_

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
  // A set begins (before its first pass).
  void Began(uint64_t now_ns);
  // A set ended (decoded, cut or dropped); its host work goes on until Settle.
  void Ended() { ++ending_; }
  bool ending() const { return ending_ > 0; }
  // The callback in which sets ended is over: their time is charged.
  void Settle(uint64_t now_ns);

  uint64_t charged_ns() const { return charged_ns_; }
  uint64_t waits() const { return waits_; }
  // "sets took 8.2 s, 26% of the time outside them (budget 25%); 577161 launches
  // waited for it"; "" without a budget or before the first set.
  std::string Describe() const;

 private:
  // Time charged up to `now_ns`, the set in progress included.
  uint64_t ChargedAt(uint64_t now_ns) const;

  int pct_;
  uint64_t start_ns_ = 0;  // the first set's beginning: the clock's zero
  uint64_t last_ns_ = 0;   // the latest time seen
  uint64_t busy_since_ns_ = 0;
  size_t running_ = 0, ending_ = 0;  // sets in progress; of them, ended and not yet settled
  uint64_t charged_ns_ = 0, longest_ns_ = 0;
  uint64_t waits_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_SET_BUDGET_H_
