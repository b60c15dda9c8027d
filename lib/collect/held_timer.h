// Held-time accounting of the counter strategies: a HeldTimer times the callback work
// of its scope (a launch or region callback that holds the program's thread); spans
// of kRecordedHeldNs or more go to the outbox as overhead records, cut into the phases
// timed inside them (held_phases.h). A Phase times one part of the work: adds it to a
// CounterStats sum (if any) and, inside a HeldTimer of the same thread, names that
// part of its span.
//
// Thread-confined: a timer and its phases live on one thread (the innermost timer of
// the thread is found through a thread_local). Takes the outbox's lock only in the
// destructor of a span worth recording.
#ifndef CUSCOPE_LIB_COLLECT_HELD_TIMER_H_
#define CUSCOPE_LIB_COLLECT_HELD_TIMER_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "lib/collect/counter_outbox.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/held_phases.h"

namespace cuscope::collect {

class HeldTimer {
 public:
  explicit HeldTimer(CounterOutbox* outbox);
  ~HeldTimer();
  HeldTimer(const HeldTimer&) = delete;
  HeldTimer& operator=(const HeldTimer&) = delete;

  static constexpr uint64_t kRecordedHeldNs = 20000;
  // Plain strategy time between named phases shorter than this goes to a neighbour.
  static constexpr uint64_t kFoldedOtherNs = 2000;

 private:
  friend class Phase;
  CounterOutbox* outbox_;
  uint64_t start_;                           // MonotonicNs
  absl::InlinedVector<HeldSpan, 8> phases_;  // never grown past 8 (Phase)
  HeldTimer* outer_;                         // the thread's enclosing timer, if any
  static thread_local HeldTimer* current_;
};

class Phase {
 public:
  Phase(HeldPhase phase, uint64_t* sum, uint64_t t0 = MonotonicNs())
      : phase_(phase), sum_(sum), t0_(t0) {}
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  HeldPhase phase_;
  uint64_t* sum_;
  uint64_t t0_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_HELD_TIMER_H_
