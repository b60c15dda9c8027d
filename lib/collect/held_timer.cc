#include "lib/collect/held_timer.h"

#include <cupti.h>

#include <algorithm>
#include <vector>

namespace cuscope::collect {

// Timed with the cheap monotonic clock on every callback; CUPTI's clock is read only
// for a span worth recording, whose start is then its end minus its length.
thread_local HeldTimer* HeldTimer::current_ = nullptr;

HeldTimer::HeldTimer(CounterOutbox* outbox)
    : outbox_(outbox), start_(MonotonicNs()), outer_(current_) {
  current_ = this;
}

HeldTimer::~HeldTimer() {
  current_ = outer_;
  const uint64_t now = MonotonicNs();
  const uint64_t held = now - start_;
  uint64_t end = 0;
  if (held < kRecordedHeldNs || cuptiGetTimestamp(&end) != CUPTI_SUCCESS || end < held) return;
  // CUPTI's clock at `now`: the phases move by the same offset.
  std::vector<HeldSpan> spans;
  for (const HeldSpan& s : SplitHeld(start_, now, phases_, kFoldedOtherNs)) {
    spans.push_back({s.phase, end - (now - s.start_ns), end - (now - s.end_ns)});
  }
  outbox_->AddHeld(spans);
}

Phase::~Phase() {
  const uint64_t now = MonotonicNs();
  if (sum_ != nullptr) *sum_ += now - t0_;
  HeldTimer* held = HeldTimer::current_;
  if (held == nullptr) return;
  // A few spans a callback, without allocating: a phase like the last one (a set's
  // ranges evaluated one by one), or one past the room, extends the last.
  auto& phases = held->phases_;
  if (!phases.empty() && (phases.back().phase == phase_ || phases.size() == phases.capacity())) {
    phases.back().end_ns = std::max(phases.back().end_ns, now);
  } else {
    phases.push_back({phase_, t0_, now});
  }
}

}  // namespace cuscope::collect
