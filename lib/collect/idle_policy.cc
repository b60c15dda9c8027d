#include "lib/collect/idle_policy.h"

#include <algorithm>
#include <utility>

namespace cuscope::collect {

void IdlePolicy::Reset(uint64_t idle_launches, bool enabled) {
  *this = IdlePolicy();
  idle_launches_ = idle_launches;
  enabled_ = enabled && idle_launches > 0;
}

uint64_t IdlePolicy::Threshold(size_t period) const {
  return std::max<uint64_t>(idle_launches_, 3 * uint64_t{period});
}

bool IdlePolicy::Launch(const Signature& sig, bool settled, bool busy, size_t period) {
  if (!woke_by_.empty()) woke_by_.erase(sig);  // launched while on: not one they miss
  if (!enabled_ || off_) return false;
  if (!settled || busy) {
    run_ = 0;
    return false;
  }
  return ++run_ >= Threshold(period);
}

SettledSignatures IdlePolicy::Off(SettledSignatures settled) {
  for (auto it = woke_by_.begin(); it != woke_by_.end();) {
    if (it->second >= 2) {
      given_up_.insert(it->first);
      woke_by_.erase(it++);
    } else {
      ++it;
    }
  }
  for (const Signature& sig : given_up_) settled.spent.insert(sig);
  off_ = true;
  return settled;
}

void IdlePolicy::On(const Signature& sig) {
  ++woke_by_[sig];
  off_ = false;
  run_ = 0;
}

void IdlePolicy::Disable() {
  enabled_ = false;
  off_ = false;
  run_ = 0;
}

}  // namespace cuscope::collect
