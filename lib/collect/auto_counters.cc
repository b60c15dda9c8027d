#include "lib/collect/auto_counters.h"

namespace cuscope::collect {

void AutoCounters::Enter(ProfiledContext& c, const EnteredLaunch& launch) {
  if (next_ != nullptr) return;  // taken over already (the sampler swaps after this call)
  // The context was set up for this launch: the metric configuration decided the mode.
  const LaunchMode mode = run_.planner().mode();
  if (mode == LaunchMode::kPending || mode == LaunchMode::kRefused) return;
  next_ = make_(mode);
  if (next_ != nullptr) HandOver(*this, *next_, c, launch);
}

}  // namespace cuscope::collect
