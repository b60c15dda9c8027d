// Idle launch callbacks: with a bounded number of samples, the counter sampler's launch
// callbacks go off once nothing is left to measure, and come back when a kernel record
// shows a signature still to sample. Measured on the H200 (docs/performance.md, session
// 16): in one process of a GPT-2 training step, every signature long sampled, the
// launch call took 0.4-2 us less once the callbacks were off.
#include <algorithm>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/collect/counters.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/launch_params.h"
#include "lib/collect/stderr.h"

namespace cuscope::collect {
namespace {
// Names kept for the note: the first few signatures that brought the callbacks back.
constexpr size_t kWokeNamesKept = 3;
// Rotate's time budget: the callbacks go off only for a wait of at least this long, and
// two tick periods (they come back at the first tick after the wait, up to one late).
constexpr uint64_t kBudgetOffMinNs = 2000000000;
}  // namespace

void CounterSampler::ResetIdle() {
  // Only kernel records bring the callbacks back: none without kernel tracing, and
  // none outside capture windows.
  idle_.Reset(options_.counters.idle_launches,
              options_.trace.kernel && options_.capture.mode == CaptureMode::kAll);
  idle_ns_ = idle_since_ns_ = 0;
  idle_offs_ = idle_ons_ = launches_before_idle_ = 0;
  woke_names_.clear();
  budget_off_ = false;
  budget_off_since_ns_ = budget_off_ns_ = budget_offs_ = budget_ons_ = 0;
  budget_ticks_.store(planner_->budget().enabled());
  idle_due_.store(false);
  idle_flag_.store(false);
  wake_due_.store(false);
  absl::MutexLock lock(&idle_mu_);
  settled_ = SettledSignatures();
  woken_by_.reset();
}

void CounterSampler::CountIdle(const Signature& sig, bool settled, bool busy) {
  if (idle_.Launch(sig, settled, busy, planner_->stats().period) &&
      !idle_due_.load(std::memory_order_relaxed)) {
    idle_due_.store(true);
  }
}

void CounterSampler::KernelRecord(const std::string& kernel_name, const model::Dim3& grid,
                                  const model::Dim3& block) {
  if (!idle_flag_.load(std::memory_order_relaxed) || wake_due_.load(std::memory_order_relaxed)) {
    return;
  }
  Signature sig{kernel_name, grid, block};
  absl::MutexLock lock(&idle_mu_);
  if (settled_.Contains(sig) || woken_by_.has_value()) return;
  woken_by_ = std::move(sig);
  wake_due_.store(true);
}

void CounterSampler::Tick() {
  // Records no longer reach cuscope (another CUPTI client took the buffers): nothing
  // could wake the callbacks, so they come back now.
  if (idle_flag_.load() && kinds_->RecordsTaken()) wake_due_.store(true);
  if (!idle_due_.load() && !wake_due_.load() && !budget_ticks_.load()) return;
  absl::MutexLock switch_lock(&switch_mu_);
  bool off = false, on = false;
  {
    absl::MutexLock lock(&mu_);
    if (!active_) return;
    off = GoIdle();
    if (!off) on = Wake();
    if (!off && !on) off = BudgetOff();
    if (!off && !on) on = BudgetOn();
  }
  if (off || on) SwitchLaunchCallbacks(on);
}

bool CounterSampler::GoIdle() {
  // Off for the budget already (a launch in flight at the switch may have made it due):
  // one reason at a time, so that each one's way back finds them as it left them.
  if (idle_.off() || !idle_due_.load() || budget_off_) return false;
  if (!idle_.Ready(planner_->stats().period) || kinds_->RecordsTaken()) {
    idle_due_.store(false);  // a launch since reset the run, or no record could wake them
    return false;
  }
  if (AnySetInProgress()) return false;  // next tick
  // No set begins at the exit of a launch still in its call (rotate: a wanted launch).
  for (auto& [ctx, c] : contexts_) c->plan.last_wanted = false;
  const uint64_t run = idle_.run();
  SettledSignatures settled = idle_.Off(planner_->SettledSnapshot());
  {
    absl::MutexLock lock(&idle_mu_);
    settled_ = std::move(settled);
    woken_by_.reset();
  }
  wake_due_.store(false);
  idle_flag_.store(true);
  idle_due_.store(false);
  idle_since_ns_ = MonotonicNs();
  if (idle_offs_++ == 0) launches_before_idle_ = planner_->stats().launches_seen;
  if (options_.verbose) {
    WriteStderr(absl::StrFormat(
        "cuscope: counters: nothing left to measure in the last %d launches (%s): launch "
        "callbacks off until a kernel record shows a signature still to sample\n",
        run, planner_->Describe()));
  }
  return true;
}

bool CounterSampler::Wake() {
  if (!idle_.off() || !wake_due_.load()) return false;
  std::optional<Signature> sig;
  {
    absl::MutexLock lock(&idle_mu_);
    sig = std::move(woken_by_);
    woken_by_.reset();
  }
  idle_flag_.store(false);
  wake_due_.store(false);
  idle_ns_ += MonotonicNs() - idle_since_ns_;
  ++idle_ons_;
  if (sig.has_value()) {
    if (woke_names_.size() < kWokeNamesKept) {
      woke_names_.push_back(absl::StrFormat("%s <<<(%d,%d,%d), (%d,%d,%d)>>>", sig->name,
                                            sig->grid.x, sig->grid.y, sig->grid.z, sig->block.x,
                                            sig->block.y, sig->block.z));
    }
    if (options_.verbose) {
      WriteStderr(
          absl::StrFormat("cuscope: counters: launch callbacks back on for %s\n", sig->name));
    }
    idle_.On(*sig);
  } else {
    woke_names_.push_back("activity records taken by another CUPTI client");
    idle_.Disable();  // nothing would wake them again
  }
  if (planner_->rotate()) {
    for (auto& [ctx, c] : contexts_) RotateDriver::Resumed(c->plan);
  }
  return true;
}

bool CounterSampler::AnySetInProgress() const {
  for (const auto& [ctx, c] : contexts_) {
    if (c->plan.in_set || c->plan.window_open || c->replaying) return true;
  }
  return false;
}

bool CounterSampler::BudgetOff() {
  const uint64_t tick_ns = uint64_t{1000000} * std::max(0, options_.counters.tick_ms);
  if (!planner_->budget().enabled() || tick_ns == 0 || budget_off_ || idle_.off() ||
      AnySetInProgress()) {
    return false;
  }
  const uint64_t now = MonotonicNs();
  planner_->budget().Observe(now);
  const uint64_t at = planner_->budget().AllowedAt();
  if (at == 0 || at <= now || at - now < std::max(kBudgetOffMinNs, 2 * tick_ns)) return false;
  // No set begins at the exit of a launch still in its call.
  for (auto& [ctx, c] : contexts_) c->plan.last_wanted = false;
  budget_off_ = true;
  budget_off_since_ns_ = now;
  ++budget_offs_;
  if (options_.verbose) {
    WriteStderr(absl::StrFormat(
        "cuscope: counters: rotate's time budget allows no set for %.1f s: launch callbacks "
        "off until then\n",
        (at - now) / 1e9));
  }
  return true;
}

bool CounterSampler::BudgetOn() {
  if (!budget_off_) return false;
  const uint64_t now = MonotonicNs();
  planner_->budget().Observe(now);
  if (now < planner_->budget().AllowedAt()) return false;
  budget_off_ = false;
  budget_off_ns_ += now - budget_off_since_ns_;
  ++budget_ons_;
  // Launches went by unseen: the history's last launches are not the ones before the next.
  for (auto& [ctx, c] : contexts_) RotateDriver::Resumed(c->plan);
  return true;
}

void CounterSampler::SwitchLaunchCallbacks(bool on) {
  for (const auto& [domain, cbid] : LaunchCallbacks()) {
    absl::Status st = on ? callbacks_->Enable(domain, cbid) : callbacks_->Disable(domain, cbid);
    st.IgnoreError();  // unsubscribed meanwhile (another client took CUPTI): nothing to switch
  }
}

void CounterSampler::NoteIdle() {
  if (budget_offs_ > 0) {
    const uint64_t off_ns =
        budget_off_ns_ + (budget_off_ ? MonotonicNs() - budget_off_since_ns_ : 0);
    notes_["counters.budget_idle"] = absl::StrFormat(
        "launch callbacks off %d time(s), %.1f s in all, while rotate's time budget allowed "
        "no set; back on %d time(s). Launches while off are in the trace, not in the launch "
        "counts",
        budget_offs_, off_ns / 1e9, budget_ons_);
  }
  if (idle_offs_ == 0) return;
  const uint64_t off_ns = idle_ns_ + (idle_.off() ? MonotonicNs() - idle_since_ns_ : 0);
  std::string text = absl::StrFormat(
      "launch callbacks off %d time(s), %.1f s in all, each after %d launches in a row with "
      "nothing left to measure (first after %d launches); back on %d time(s)",
      idle_offs_, off_ns / 1e9, options_.counters.idle_launches, launches_before_idle_, idle_ons_);
  if (!woke_names_.empty()) {
    absl::StrAppend(&text, ", for ", absl::StrJoin(woke_names_, "; "));
  }
  absl::StrAppend(&text,
                  ". Launches while off are in the trace, not in the launch counts above; set "
                  "idle_launches=0 to keep the callbacks on");
  notes_["counters.idle"] = text;
}

}  // namespace cuscope::collect
