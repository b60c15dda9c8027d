#include "lib/collect/held_phases.h"

#include <algorithm>

#include "lib/model/profile.h"

namespace cuscope::collect {

const char* HeldPhaseKind(HeldPhase phase) {
  switch (phase) {
    case HeldPhase::kSetup:
      return model::kCountersSetup;
    case HeldPhase::kImage:
      return model::kCountersImage;
    case HeldPhase::kPass:
      return model::kCountersMeasure;
    case HeldPhase::kRead:
      return model::kCountersDecode;
    case HeldPhase::kOther:
      break;
  }
  return model::kCountersOverhead;
}

namespace {
// Adjacent spans of one phase as one.
std::vector<HeldSpan> Merged(const std::vector<HeldSpan>& spans) {
  std::vector<HeldSpan> out;
  for (const HeldSpan& s : spans) {
    if (!out.empty() && out.back().phase == s.phase) {
      out.back().end_ns = s.end_ns;
    } else {
      out.push_back(s);
    }
  }
  return out;
}
}  // namespace

std::vector<HeldSpan> SplitHeld(uint64_t start_ns, uint64_t end_ns,
                                absl::Span<const HeldSpan> phases, uint64_t fold_other_ns) {
  std::vector<HeldSpan> out;
  if (end_ns <= start_ns) return out;
  std::vector<uint64_t> cuts = {start_ns, end_ns};
  for (const HeldSpan& p : phases) {
    for (uint64_t t : {p.start_ns, p.end_ns}) {
      if (t > start_ns && t < end_ns) cuts.push_back(t);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const uint64_t a = cuts[i], b = cuts[i + 1];
    // The phase begun last among those covering [a, b) (phases are listed as they end:
    // an inner phase ends before the one around it, so compare starts; of two begun
    // together, the first listed is the inner one).
    HeldPhase phase = HeldPhase::kOther;
    uint64_t begun = 0;
    bool covered = false;
    for (const HeldSpan& p : phases) {
      if (p.start_ns <= a && p.end_ns >= b && (!covered || p.start_ns > begun)) {
        phase = p.phase;
        begun = p.start_ns;
        covered = true;
      }
    }
    out.push_back({phase, a, b});
  }
  out = Merged(out);
  if (fold_other_ns == 0 || out.size() < 2) return out;
  for (size_t i = 0; i < out.size(); ++i) {
    HeldSpan& s = out[i];
    if (s.phase != HeldPhase::kOther || s.end_ns - s.start_ns >= fold_other_ns) continue;
    s.phase = i > 0 ? out[i - 1].phase : out[i + 1].phase;
  }
  return Merged(out);
}

}  // namespace cuscope::collect
