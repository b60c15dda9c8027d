#include "lib/collect/idle_signals.h"

#include <utility>

namespace cuscope::collect {

void IdleSignals::Reset(bool budget_ticks) {
  budget_ticks_.store(budget_ticks);
  idle_due_.store(false);
  idle_flag_.store(false);
  wake_due_.store(false);
  absl::MutexLock lock(&mu_);
  settled_ = SettledSignatures();
  woken_by_.reset();
}

void IdleSignals::KernelRecord(const std::string& kernel_name, const model::Dim3& grid,
                               const model::Dim3& block) {
  if (!idle_flag_.load(std::memory_order_relaxed) || wake_due_.load(std::memory_order_relaxed)) {
    return;
  }
  Signature sig{kernel_name, grid, block};
  absl::MutexLock lock(&mu_);
  if (settled_.Contains(sig) || woken_by_.has_value()) return;
  woken_by_ = std::move(sig);
  wake_due_.store(true);
}

void IdleSignals::GoneOff(SettledSignatures settled) {
  {
    absl::MutexLock lock(&mu_);
    settled_ = std::move(settled);
    woken_by_.reset();
  }
  wake_due_.store(false);
  idle_flag_.store(true);
  idle_due_.store(false);
}

std::optional<Signature> IdleSignals::CameBack() {
  std::optional<Signature> sig;
  {
    absl::MutexLock lock(&mu_);
    sig = std::move(woken_by_);
    woken_by_.reset();
  }
  idle_flag_.store(false);
  wake_due_.store(false);
  return sig;
}

}  // namespace cuscope::collect
