// What the counter sampler did while it held a program's thread in a callback: the
// held span cut into the phases timed inside it (the Range Profiler's setup, the
// counter image's initialization, a pass's Start and Stop, decoding and evaluating),
// the rest left as plain sampler time. Pure: the sampler times, this cuts.
#ifndef CUSCOPE_LIB_COLLECT_HELD_PHASES_H_
#define CUSCOPE_LIB_COLLECT_HELD_PHASES_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace cuscope::collect {

enum class HeldPhase : uint8_t { kOther, kSetup, kImage, kPass, kRead };

struct HeldSpan {
  HeldPhase phase = HeldPhase::kOther;
  uint64_t start_ns = 0, end_ns = 0;
};

// The overhead kind of a phase (lib/model/profile.h, kCountersOverhead and the names
// beside it).
const char* HeldPhaseKind(HeldPhase phase);

// [start_ns, end_ns) cut into consecutive spans that cover it exactly: where a phase
// span covers a point, that phase (the one begun last, for nested phases), elsewhere
// kOther; phase spans are clipped to the held span; a kOther span shorter than
// `fold_other_ns` joins the span before it (or after it, at the start); adjacent spans
// of one phase are merged.
std::vector<HeldSpan> SplitHeld(uint64_t start_ns, uint64_t end_ns,
                                absl::Span<const HeldSpan> phases, uint64_t fold_other_ns = 0);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_HELD_PHASES_H_
