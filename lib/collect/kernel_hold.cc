#include "lib/collect/kernel_hold.h"

namespace cuscope::collect {

void KernelHold::Reset() {
  {
    absl::MutexLock lock(&mu_);
    sets_holding_ = 0;
    held_ = false;
  }
  release_pending_.store(false);
}

void KernelHold::SetInProgress(bool in_set) {
  absl::MutexLock lock(&mu_);
  if (in_set) {
    // Before the set's first pass starts: here, under the session lock. Held still if
    // the last set just ended.
    if (sets_holding_++ == 0 && !held_) {
      held_ = true;
      kinds_->HoldGpuKinds(true);
    }
  } else if (--sets_holding_ == 0) {
    release_pending_.store(true);  // Release, once the callback let go of the session lock
  }
}

void KernelHold::Release() {
  if (!release_pending_.exchange(false)) return;
  absl::MutexLock lock(&mu_);
  if (!held_ || sets_holding_ > 0) return;  // a set began meanwhile
  held_ = false;
  kinds_->HoldGpuKinds(false);
}

}  // namespace cuscope::collect
