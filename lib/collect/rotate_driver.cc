#include "lib/collect/rotate_driver.h"

#include <algorithm>

namespace cuscope::collect {

RotateDriver::SettleOnReturn::~SettleOnReturn() {
  if (c_.set_ended) d_.ChargeEnded(c_, d_.calls_.NowNs());
}

void RotateDriver::ChargeEnded(ContextPlan& c, uint64_t now_ns) {
  if (!c.set_ended) return;
  c.set_ended = false;
  planner_.budget().Charge(c.set_began_ns, now_ns);
}

void RotateDriver::Enter(ContextPlan& c, const Launch& launch) {
  SettleOnReturn settle(*this, c);
  if (c.history.capacity() < HistoryFor(planner_.window_limit()) && c.history.total() == 0) {
    c.history = LaunchHistory(HistoryFor(planner_.window_limit()));
  }
  const uint32_t id = planner_.Intern(launch.sig);
  if ((c.window_open || c.in_gap) && c.period > 0) {
    const bool predicted = c.history.size() >= c.period && c.history.Back(c.period - 1) == id;
    if (predicted) {
      c.off_period = false;
    } else if (c.period == 1 || c.off_period) {
      RememberShortRun(c);
      CutSet(c, DropReason::kInterrupted);  // ends the window before this launch
    } else {
      // (In a gap, a launch in place of another keeps the next pass where it belongs.)
      c.off_period = true;  // a substitution costs its own range
    }
  }
  c.history.Push(id);
  c.last_wanted = launch.wanted;
  if (!launch.wanted && c.unwanted_ids.size() < kMaxUnwantedIds) c.unwanted_ids.insert(id);
  if (c.in_gap && c.gap_left > 0) --c.gap_left;
  if (!c.window_open) return;
  c.windows.back().push_back(launch);
  planner_.CountMeasured();
  calls_.Measured(launch);
}

void RotateDriver::Exit(ContextPlan& c) {
  SettleOnReturn settle(*this, c);
  if (c.window_open) {
    if (c.windows.back().size() < c.window_cap) return;
    if (!ClosePass(c, DropReason::kInterrupted)) return;
    if (c.in_set && c.stride > c.window_cap) {
      // The next pass starts one stride after this one did: the launches between are a
      // gap, their kernel records not held off.
      c.in_gap = true;
      c.gap_left = c.stride - c.window_cap;
      Hold(c, false);
      return;
    }
    if (c.in_set) {
      OpenPass(c);
      return;
    }
  }
  if (c.in_gap) {
    if (c.gap_left > 0) return;
    c.in_gap = false;
    Hold(c, true);
    OpenPass(c);
    return;
  }
  if (c.in_set || !c.last_wanted) return;
  StartSet(c);
}

void RotateDriver::Graph(ContextPlan& c) {
  SettleOnReturn settle(*this, c);
  c.history.Push(Planner::kGraphId);
  CutSet(c, DropReason::kGraph);
}

void RotateDriver::Unsafe(ContextPlan& c) {
  SettleOnReturn settle(*this, c);
  // (In a gap the launch is not measured: the set goes on.)
  if (c.window_open) CutSet(c, DropReason::kUnsafe);
}

void RotateDriver::Resumed(ContextPlan& c) {
  // A mark would not do: one exception in a hundred is tolerated (launch_period.h), so
  // the launches before it, one period earlier, would still explain the period and
  // predict the next launches from where the sequence was before the gap (on a GPT-2
  // step simulated, sets began at the first launch after it and were cut at once).
  c.history.Clear();
  // The period of the last set is found again before any set: not a shorter loop
  // inside it (a model's layers), found sooner.
  c.start_after = std::max(c.start_after, c.history.total() + 2 * c.period);
  c.off_period = false;
  c.last_wanted = false;
}

void RotateDriver::End(ContextPlan& c) {
  SettleOnReturn settle(*this, c);
  if (!c.in_set) return;
  if (c.window_open && !ClosePass(c, DropReason::kEnd)) return;
  if (!c.in_set) return;  // that was the last pass: decoded
  if (!c.windows.empty()) planner_.SetDropped(DropReason::kEnd, c.windows[0].size());
  c.windows.clear();
  SetInSet(c, false);
  calls_.Finished(/*decoded=*/false);  // the set's passes did not all run
}

size_t RotateDriver::ChoosePeriod(ContextPlan& c) {
  const LaunchHistory& h = c.history;
  if (h.total() >= c.detect_after) {
    Period p = h.Detect(planner_.window_limit());
    if (p.length > 0) return p.length;
    c.detect_after = h.total() + 16;  // searching costs: not at every launch of a warm-up
  }
  // No period: runs of one signature (the next launch repeats the last) when most
  // recent launches repeated the one before, or nothing is known yet.
  if (h.size() <= 1) return 1;
  const size_t pairs = std::min<size_t>(h.size() - 1, 64);
  size_t repeats = 0;
  for (size_t i = 0; i < pairs; ++i) repeats += h.Back(i) == h.Back(i + 1) ? 1 : 0;
  return 2 * repeats >= pairs ? 1 : 0;
}

bool RotateDriver::NeedsSamples(const ContextPlan& c, size_t period) const {
  if (planner_.options().per_signature <= 0) return true;
  // A bounded number of samples per signature: a set only while a signature of the
  // period (the launches it would measure) still lacks some.
  for (uint32_t id : c.history.DistinctLast(period)) {
    if (id != Planner::kGraphId && !planner_.BudgetSpent(planner_.signature(id))) return true;
  }
  return false;
}

void RotateDriver::StartSet(ContextPlan& c) {
  if (c.history.total() < c.start_after) return;
  SetBudget& budget = planner_.budget();
  uint64_t now = 0;
  if (budget.enabled()) {
    // Before the period search: with the budget spent, this runs at every launch's exit.
    now = calls_.NowNs();
    ChargeEnded(c, now);  // a set that ended in this call, before the next begins
    if (!budget.Allows(now)) return;
  }
  const size_t period = ChoosePeriod(c);
  if (period == 0 || !NeedsSamples(c, period)) return;
  const size_t multiple = period == c.period ? c.multiple : 1;
  size_t window = std::min(multiple * period, std::max<size_t>(1, planner_.window_limit()));
  const CounterOptions& o = planner_.options();
  if (o.per_signature > 0 && period == 1 && c.history.size() > 0) {
    // Runs of one signature: no more launches than samples still wanted.
    const uint64_t have = planner_.Samples(planner_.signature(c.history.Back(0)));
    const uint64_t limit = static_cast<uint64_t>(o.per_signature);
    window = std::max<size_t>(1, std::min<uint64_t>(window, limit - std::min(have, limit)));
  }
  // Passes start one stride apart: the window as the period gives it.
  const size_t stride = window;
  if (budget.enabled() && period > 1 && window > kBudgetWindow) {
    // A bounded set: the budget's guess of the next set (the last few) holds, and sets
    // spread over the loop instead of one costing seconds.
    window = kBudgetWindow;
    if (!WindowBeginsAtFewest(c, period)) return;
  }
  if (RunNotYetLongEnough(c, period, stride)) return;
  if (const size_t wait = RunTooShort(c, period, stride); wait > 0) {
    // (Before the period and multiple change: the set on the period in use keeps its
    // grown windows.)
    ++planner_.stats().sets_held_off;
    c.start_after = c.history.total() + wait;
    return;
  }
  c.period = period;
  c.multiple = multiple;
  if (budget.enabled()) {
    // Preparing the counter image is the set's cost too (a failed one included).
    budget.Began(now);
    c.set_began_ns = now;
  }
  if (!calls_.Prepare(window)) {
    c.set_ended = budget.enabled();
    return;
  }
  c.window_cap = window;
  c.stride = stride;
  c.in_gap = false;
  c.gap_left = 0;
  // Where the run began, when the history holds it (a run as long as a history that
  // dropped launches may have begun before it: not judged short).
  const size_t run = CurrentRun(c, period);
  c.run_began_known = run < c.history.size() || c.history.total() == c.history.size();
  c.run_began = c.history.total() - std::min<uint64_t>(c.history.total(), run);
  c.run_id = c.history.size() > 0 ? c.history.Back(0) : 0;
  c.windows.clear();
  c.off_period = false;
  SetInSet(c, true);
  ++planner_.stats().sets_started;
  planner_.stats().period = period;
  OpenPass(c);
}

bool RotateDriver::WindowBeginsAtFewest(ContextPlan& c, size_t period) {
  if (period < 2 || c.history.size() < period) return true;
  const uint64_t samples = planner_.stats().sets_complete;
  if (c.fewest_at_samples != samples || c.fewest_period != period) {
    uint64_t fewest = UINT64_MAX;
    for (uint32_t id : c.history.DistinctLast(period)) {
      if (id == Planner::kGraphId || c.unwanted_ids.contains(id)) continue;
      fewest = std::min(fewest, planner_.Samples(planner_.signature(id)));
    }
    c.fewest = fewest;
    c.fewest_at_samples = samples;
    c.fewest_period = period;
  }
  // The launch after this one, as the period predicts.
  const uint32_t next = c.history.Back(period - 1);
  if (next == Planner::kGraphId || c.unwanted_ids.contains(next)) return false;
  return planner_.Samples(planner_.signature(next)) <= c.fewest;
}

size_t RotateDriver::CurrentRun(const ContextPlan& c, size_t period) {
  // The first period of the run is what the ones explained repeat.
  return c.history.Explained(period) + period;
}

void RotateDriver::RememberShortRun(ContextPlan& c) {
  const bool budget = planner_.options().per_signature > 0;
  if (!c.in_set || c.period == 0 || (c.period == 1 && !budget) || !c.run_began_known) return;
  // The set ends with the run: could a run this long hold the set's passes? A set
  // begins after two periods of the run at the earliest (the period is found when the
  // last one repeats the one before), with a budget once the run has lasted as long
  // as the set (RunNotYetLongEnough). The run is counted from where it began, found
  // when the set began: the launches just before this one, one of them off the
  // period, no longer explain it.
  const size_t run = c.history.total() - c.run_began;
  const size_t set = planner_.passes() * c.stride;
  const size_t begins =
      budget ? std::max(2 * c.period, std::min(set, c.history.capacity())) : 2 * c.period;
  // A run the history cannot hold whole is never judged short: a later run of the
  // period is seen at most that long (CurrentRun), so it could never outgrow it.
  if (run >= begins + set || run >= c.history.capacity()) return;
  if (c.period == 1) {
    if (c.short_single_runs.size() >= kMaxShortSingleRuns &&
        !c.short_single_runs.contains(c.run_id)) {
      return;
    }
    size_t& longest = c.short_single_runs[c.run_id];
    longest = std::max(longest, run);
    return;
  }
  size_t& longest = c.short_runs[c.period];
  longest = std::max(longest, run);
}

bool RotateDriver::RunNotYetLongEnough(ContextPlan& c, size_t period, size_t window) {
  if (planner_.options().per_signature <= 0) return false;
  const size_t run = CurrentRun(c, period);
  // (A run longer than the history is not seen whole: as long as the history will do.)
  const size_t set = std::min(planner_.passes() * window, c.history.capacity());
  if (run >= set) return false;
  ++planner_.stats().sets_deferred;
  // The run cannot reach the set's length sooner; a period that changes meanwhile is
  // found again after at most one of its own.
  c.start_after = c.history.total() + std::min(set - run, std::max<size_t>(period, kSkipPause));
  return true;
}

size_t RotateDriver::RunTooShort(const ContextPlan& c, size_t period, size_t window) const {
  if (period == 0 || c.history.size() == 0) return 0;
  size_t shorter_than = 0;
  if (period == 1) {
    auto it = c.short_single_runs.find(c.history.Back(0));
    if (it == c.short_single_runs.end()) return 0;
    shorter_than = it->second;
  } else {
    auto it = c.short_runs.find(period);
    if (it == c.short_runs.end()) return 0;
    shorter_than = it->second;
  }
  const size_t run = CurrentRun(c, period);
  // A run already longer than the short one is another loop: it may hold the set.
  if (run > shorter_than || run + planner_.passes() * window <= shorter_than) return 0;
  // A run of one kernel cannot outgrow the short one sooner (and may be a few
  // launches from it); a loop is asked again after a pause.
  return period == 1 ? std::min(shorter_than - run + 1, kSkipPause) : kSkipPause;
}

bool RotateDriver::OpenPass(ContextPlan& c) {
  if (!calls_.Start()) {
    SetInSet(c, false);
    c.windows.clear();
    return false;
  }
  c.window_open = true;
  c.windows.emplace_back();
  return true;
}

bool RotateDriver::ClosePass(ContextPlan& c, DropReason missing) {
  c.window_open = false;
  RangeCalls::Stopped stopped = calls_.Stop();
  if (!stopped.ok) {
    SetInSet(c, false);
    c.windows.clear();
    return false;
  }
  if (stopped.all_passes_submitted) FinishSet(c, missing);
  return true;
}

void RotateDriver::CutSet(ContextPlan& c, DropReason why) {
  if (!c.in_set) return;
  if (c.window_open && !ClosePass(c, why)) return;
  c.in_gap = false;  // the remaining passes run now, empty
  // The remaining passes, empty: CUPTI decodes a set once every pass was submitted.
  for (size_t guard = 0; c.in_set && guard <= planner_.passes(); ++guard) {
    if (!OpenPass(c) || !ClosePass(c, why)) return;
  }
  if (c.in_set) End(c);
}

void RotateDriver::FinishSet(ContextPlan& c, DropReason missing) {
  SetInSet(c, false);
  std::optional<size_t> ranges = calls_.Decode();
  std::vector<std::vector<Launch>> windows = std::move(c.windows);
  c.windows.clear();
  if (!ranges) {
    if (!windows.empty()) planner_.SetDropped(DropReason::kNotDecoded, windows[0].size());
    calls_.Finished(/*decoded=*/false);
    Backoff(c, /*productive=*/false);
    return;
  }
  std::vector<RangeMatch> matches = planner_.Match(windows, *ranges, missing);
  bool clean = matches.size() == (windows.empty() ? 0 : windows[0].size());
  bool any_complete = false;
  for (size_t i = 0; i < matches.size(); ++i) {
    RangeMatch& m = matches[i];
    if (!m.complete) {
      clean = false;
      continue;
    }
    any_complete = true;
    if (!m.wanted || planner_.BudgetSpent(m.sig)) {
      ++planner_.stats().not_kept;
      continue;
    }
    if (calls_.Keep(i, m)) {
      planner_.SetComplete(m.sig);
    } else {
      planner_.SetDropped(DropReason::kEvaluate);
    }
  }
  calls_.Finished(/*decoded=*/true);
  // A period whose set gave a sample is not too short (an entry judged on a run cut by
  // something else is forgotten).
  if (any_complete && c.period == 1) c.short_single_runs.erase(c.run_id);
  if (any_complete && c.period > 1) c.short_runs.erase(c.period);
  const size_t grow = std::max<size_t>(1, kGrowTo / std::max<size_t>(1, c.period));
  c.multiple = clean ? std::min(c.multiple * 2, grow) : 1;
  // A set cut before its first launch (a run-of-one guess the next launch ended) is
  // not judged: in a benchmark of runs of one kernel each run begins with one. It
  // still cost its passes, so it waits as long as the last judged set did.
  if (windows.empty() || !windows[0].empty()) {
    Backoff(c, any_complete);
  } else {
    c.start_after = c.history.total() + c.backoff;
  }
}

void RotateDriver::SetInSet(ContextPlan& c, bool in_set) {
  if (c.in_set == in_set) return;
  c.in_set = in_set;
  if (!in_set) {
    c.in_gap = false;
    c.gap_left = 0;
  }
  if (!in_set && planner_.budget().enabled()) c.set_ended = true;
  Hold(c, in_set);
}

void RotateDriver::Hold(ContextPlan& c, bool hold) {
  if (c.held == hold) return;
  c.held = hold;
  calls_.SetInProgress(hold);
}

void RotateDriver::Backoff(ContextPlan& c, bool productive) {
  // Failures in a row are the price of guesses that may pay (a run of one kernel too
  // short for its passes, before a run that is long enough); three in a row, where
  // fewer than one set in four gave a complete range, is a period not there yet. The
  // counts cover the context's life: after many good sets, failures wait longer.
  c.unproductive = productive ? 0 : c.unproductive + 1;
  ++c.sets_judged;
  if (productive) ++c.sets_productive;
  const bool guessing =
      c.unproductive >= kFailuresBeforeBackoff && 4 * c.sets_productive < c.sets_judged;
  c.backoff = guessing ? std::min(std::max(kFirstBackoff, 2 * c.backoff), kMaxBackoff) : 0;
  c.start_after = c.history.total() + c.backoff;
}

}  // namespace cuscope::collect
