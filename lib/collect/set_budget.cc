#include "lib/collect/set_budget.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace cuscope::collect {

uint64_t SetBudget::NextSetNs() const { return *std::max_element(recent_.begin(), recent_.end()); }

bool SetBudget::Allows(uint64_t now_ns) {
  if (!enabled() || start_ns_ == 0) return true;  // no set yet: nothing to pay for
  Observe(now_ns);
  const bool ok = now_ns >= allowed_at_;
  if (!ok) ++waits_;
  return ok;
}

void SetBudget::Recompute() {
  // A set may begin at t once (charged + next) x 100 <= pct x (t - start - charged); in
  // floating point (pct x outside overflows 64 bits after days at large budgets).
  const double wait = std::ceil(
      (static_cast<double>(charged_ns_) + static_cast<double>(NextSetNs())) * 100.0 / pct_);
  const double at = static_cast<double>(start_ns_) + static_cast<double>(charged_ns_) + wait;
  allowed_at_ = at >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(at);
}

void SetBudget::Began(uint64_t now_ns) {
  if (!enabled()) return;
  Observe(now_ns);
  if (start_ns_ != 0) return;
  start_ns_ = std::max<uint64_t>(now_ns, 1);
  Recompute();
}

void SetBudget::Charge(uint64_t began_ns, uint64_t now_ns) {
  if (!enabled()) return;
  Observe(now_ns);
  const uint64_t cost = now_ns > began_ns ? now_ns - began_ns : 0;
  charged_ns_ += cost;
  recent_[sets_++ % kRecent] = cost;
  Recompute();
}

std::string SetBudget::Describe() const {
  if (!enabled() || start_ns_ == 0) return "";
  const uint64_t elapsed = last_ns_ > start_ns_ ? last_ns_ - start_ns_ : 0;
  const uint64_t outside = elapsed - std::min(elapsed, charged_ns_);
  std::string share =
      outside > 0 ? absl::StrFormat("%.0f%%", 100.0 * charged_ns_ / outside) : std::string("all");
  std::string out = absl::StrCat("sets took ", absl::StrFormat("%.1f", charged_ns_ / 1e9), " s, ",
                                 share, " of the time outside them (budget ", pct_, "%)");
  if (waits_ > 0)
    absl::StrAppend(&out, "; ", waits_, " launches passed while it was spent and the callbacks on");
  return out;
}

}  // namespace cuscope::collect
