#include "lib/collect/launch_switch.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/rotate_driver.h"
#include "lib/collect/stderr.h"

namespace cuscope::collect {
namespace {
// Names kept for the note: the first few signatures that brought the callbacks back.
constexpr size_t kWokeNamesKept = 3;
// Rotate's time budget: the callbacks go off only for a wait of at least this long, and
// two tick periods (they come back at the first tick after the wait, up to one late).
constexpr uint64_t kBudgetOffMinNs = 2000000000;
}  // namespace

LaunchSwitch::LaunchSwitch(CounterRun& run, IdleSignals& signals, GpuKindControl* kinds)
    : run_(run), signals_(signals), kinds_(kinds) {
  // Only kernel records bring the callbacks back: none without kernel tracing, and
  // none outside capture windows.
  const CollectOptions& options = run.options();
  idle_.Reset(options.counters.idle_launches,
              options.trace.kernel && options.capture.mode == CaptureMode::kAll);
}

size_t LaunchSwitch::IdlePeriod() const {
  return run_.planner().mode() == LaunchMode::kRotate ? run_.stats().period : 0;
}

void LaunchSwitch::CountIdle(const Signature& sig, bool settled, bool busy) {
  if (idle_.Launch(sig, settled, busy, IdlePeriod())) signals_.MarkIdleDue();
}

CounterStrategy::Switch LaunchSwitch::Decide(Plans& plans) {
  bool off = GoIdle(plans), on = false;
  if (!off) on = Wake(plans);
  if (!off && !on) off = BudgetOff(plans);
  if (!off && !on) on = BudgetOn(plans);
  return off  ? CounterStrategy::Switch::kOff
         : on ? CounterStrategy::Switch::kOn
              : CounterStrategy::Switch::kNone;
}

bool LaunchSwitch::GoIdle(Plans& plans) {
  // Off for the budget already (a launch in flight at the switch may have made it due):
  // one reason at a time, so that each one's way back finds them as it left them.
  if (idle_.off() || !signals_.idle_due() || budget_off_) return false;
  if (!idle_.Ready(IdlePeriod()) || kinds_->RecordsTaken()) {
    signals_.ClearIdleDue();  // a launch since reset the run, or no record could wake them
    return false;
  }
  if (plans.AnySetInProgress()) return false;  // next tick
  // No set begins at the exit of a launch still in its call (rotate: a wanted launch).
  plans.ForgetWanted();
  const uint64_t run = idle_.run();
  signals_.GoneOff(idle_.Off(run_.planner().SettledSnapshot()));
  idle_since_ns_ = MonotonicNs();
  if (idle_offs_++ == 0) launches_before_idle_ = run_.stats().launches_seen;
  if (run_.options().verbose) {
    WriteStderr(absl::StrFormat(
        "cuscope: counters: nothing left to measure in the last %d launches (%s): launch "
        "callbacks off until a kernel record shows a signature still to sample\n",
        run, run_.planner().Describe()));
  }
  return true;
}

bool LaunchSwitch::Wake(Plans& plans) {
  if (!idle_.off() || !signals_.wake_due()) return false;
  std::optional<Signature> sig = signals_.CameBack();
  idle_ns_ += MonotonicNs() - idle_since_ns_;
  ++idle_ons_;
  if (sig.has_value()) {
    if (woke_names_.size() < kWokeNamesKept) {
      woke_names_.push_back(absl::StrFormat("%s <<<(%d,%d,%d), (%d,%d,%d)>>>", sig->name,
                                            sig->grid.x, sig->grid.y, sig->grid.z, sig->block.x,
                                            sig->block.y, sig->block.z));
    }
    if (run_.options().verbose) {
      WriteStderr(
          absl::StrFormat("cuscope: counters: launch callbacks back on for %s\n", sig->name));
    }
    idle_.On(*sig);
  } else {
    woke_names_.push_back("activity records taken by another CUPTI client");
    idle_.Disable();  // nothing would wake them again
  }
  if (run_.planner().rotate()) plans.Resumed();
  return true;
}

bool LaunchSwitch::BudgetOff(Plans& plans) {
  const uint64_t tick_ns = uint64_t{1000000} * std::max(0, run_.options().counters.tick_ms);
  SetBudget& budget = run_.planner().budget();
  if (!budget.enabled() || tick_ns == 0 || budget_off_ || idle_.off() || plans.AnySetInProgress()) {
    return false;
  }
  const uint64_t now = MonotonicNs();
  budget.Observe(now);
  const uint64_t at = budget.AllowedAt();
  if (at == 0 || at <= now || at - now < std::max(kBudgetOffMinNs, 2 * tick_ns)) return false;
  // No set begins at the exit of a launch still in its call.
  plans.ForgetWanted();
  budget_off_ = true;
  budget_off_since_ns_ = now;
  ++budget_offs_;
  if (run_.options().verbose) {
    WriteStderr(absl::StrFormat(
        "cuscope: counters: rotate's time budget allows no set for %.1f s: launch callbacks "
        "off until then\n",
        (at - now) / 1e9));
  }
  return true;
}

bool LaunchSwitch::BudgetOn(Plans& plans) {
  if (!budget_off_) return false;
  const uint64_t now = MonotonicNs();
  SetBudget& budget = run_.planner().budget();
  budget.Observe(now);
  if (now < budget.AllowedAt()) return false;
  budget_off_ = false;
  budget_off_ns_ += now - budget_off_since_ns_;
  ++budget_ons_;
  // Launches went by unseen: the history's last launches are not the ones before the next.
  plans.Resumed();
  return true;
}

void LaunchSwitch::Note() {
  if (budget_offs_ > 0) {
    const uint64_t off_ns =
        budget_off_ns_ + (budget_off_ ? MonotonicNs() - budget_off_since_ns_ : 0);
    run_.notes().Set(
        &model::RunNotes::counters_budget_idle,
        absl::StrFormat(
            "launch callbacks off %d time(s), %.1f s in all, while rotate's time budget allowed "
            "no set; back on %d time(s). Launches while off are in the trace, not in the launch "
            "counts",
            budget_offs_, off_ns / 1e9, budget_ons_));
  }
  if (idle_offs_ == 0) return;
  const uint64_t off_ns = idle_ns_ + (idle_.off() ? MonotonicNs() - idle_since_ns_ : 0);
  std::string text = absl::StrFormat(
      "launch callbacks off %d time(s), %.1f s in all, each after %d launches in a row with "
      "nothing left to measure (first after %d launches); back on %d time(s)",
      idle_offs_, off_ns / 1e9, run_.options().counters.idle_launches, launches_before_idle_,
      idle_ons_);
  if (!woke_names_.empty()) {
    absl::StrAppend(&text, ", for ", absl::StrJoin(woke_names_, "; "));
  }
  absl::StrAppend(&text,
                  ". Launches while off are in the trace, not in the launch counts above; set "
                  "idle_launches=0 to keep the callbacks on");
  run_.notes().Set(&model::RunNotes::counters_idle, text);
}

}  // namespace cuscope::collect
