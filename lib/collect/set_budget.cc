#include "lib/collect/set_budget.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace cuscope::collect {

uint64_t SetBudget::ChargedAt(uint64_t now_ns) const {
  const uint64_t running = running_ > 0 && now_ns > busy_since_ns_ ? now_ns - busy_since_ns_ : 0;
  return charged_ns_ + running;
}

bool SetBudget::Allows(uint64_t now_ns) {
  if (!enabled() || start_ns_ == 0) return true;  // no set yet: nothing to pay for
  last_ns_ = std::max(last_ns_, now_ns);
  const uint64_t elapsed = now_ns > start_ns_ ? now_ns - start_ns_ : 0;
  const uint64_t charged = ChargedAt(now_ns);
  const uint64_t outside = elapsed - std::min(elapsed, charged);
  // In floating point: pct x outside overflows 64 bits after days at large budgets.
  const bool ok = (static_cast<double>(charged) + static_cast<double>(longest_ns_)) * 100.0 <=
                  static_cast<double>(pct_) * static_cast<double>(outside);
  if (!ok) ++waits_;
  return ok;
}

void SetBudget::Began(uint64_t now_ns) {
  if (start_ns_ == 0) start_ns_ = now_ns;
  last_ns_ = std::max(last_ns_, now_ns);
  if (running_++ == 0) busy_since_ns_ = now_ns;
}

void SetBudget::Settle(uint64_t now_ns) {
  if (ending_ == 0) return;
  last_ns_ = std::max(last_ns_, now_ns);
  running_ -= std::min(running_, ending_);
  ending_ = 0;
  if (running_ > 0) return;  // another context's set goes on: one span
  const uint64_t span = now_ns > busy_since_ns_ ? now_ns - busy_since_ns_ : 0;
  charged_ns_ += span;
  longest_ns_ = std::max(longest_ns_, span);
}

std::string SetBudget::Describe() const {
  if (!enabled() || start_ns_ == 0) return "";
  const uint64_t elapsed = last_ns_ > start_ns_ ? last_ns_ - start_ns_ : 0;
  const uint64_t outside = elapsed - std::min(elapsed, charged_ns_);
  std::string share =
      outside > 0 ? absl::StrFormat("%.0f%%", 100.0 * charged_ns_ / outside) : std::string("all");
  std::string out = absl::StrCat("sets took ", absl::StrFormat("%.1f", charged_ns_ / 1e9), " s, ",
                                 share, " of the time outside them (budget ", pct_, "%)");
  if (waits_ > 0) absl::StrAppend(&out, "; ", waits_, " launches waited for it");
  return out;
}

}  // namespace cuscope::collect
