#include "lib/collect/sweep_driver.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace cuscope::collect {

size_t SweepDriver::WindowCap() const {
  return std::min(kSweepWindow, std::max<size_t>(1, planner_.window_limit()));
}

void SweepDriver::Enter(ContextPlan& c, const Launch& launch, bool excluded) {
  ++c.seen;
  if (excluded) {
    if (c.window_open) Close(c);  // before it: it is never a range
    return;
  }
  const uint32_t id = planner_.Intern(launch.sig);  // (the signatures seen, for the summary)
  // Full at another thread's launch, between a launch's API_ENTER and API_EXIT: the
  // window keeps the ranges its image was prepared for.
  if (c.window_open && c.windows.back().size() >= c.window_cap) Close(c);
  if (c.window_open) {
    Add(c, launch, id);
    return;
  }
  if (!launch.wanted) return;
  if (c.seen <= c.start_after) {
    ++planner_.stats().backoff_launches;
    return;
  }
  if (Open(c)) Add(c, launch, id);
}

void SweepDriver::Exit(ContextPlan& c) {
  if (!c.window_open) return;
  if (c.windows.back().size() >= c.window_cap || c.idle_in_row >= kSweepIdleClose) Close(c);
}

void SweepDriver::Cut(ContextPlan& c) {
  if (c.window_open) Close(c);
}

bool SweepDriver::Open(ContextPlan& c) {
  const size_t cap = WindowCap();
  if (!calls_.Prepare(cap)) return false;
  calls_.SetInProgress(true);
  if (!calls_.Start()) {
    calls_.SetInProgress(false);
    return false;
  }
  c.window_open = true;
  c.window_cap = cap;
  c.windows.assign(1, {});
  c.idle_in_row = 0;
  c.pending.clear();
  ++planner_.stats().windows_opened;
  return true;
}

void SweepDriver::Add(ContextPlan& c, const Launch& launch, uint32_t id) {
  const bool adds = launch.wanted && AddsSample(c, launch.sig, id);
  if (launch.wanted) ++c.pending[id];
  c.idle_in_row = adds ? 0 : c.idle_in_row + 1;
  c.windows.back().push_back(launch);
  planner_.CountMeasured();
  calls_.Measured(launch);
}

bool SweepDriver::AddsSample(const ContextPlan& c, const Signature& sig, uint32_t id) const {
  const int budget = planner_.options().per_signature;
  if (budget <= 0) return true;  // every launch measured
  auto it = c.pending.find(id);
  const uint64_t pending = it == c.pending.end() ? 0 : it->second;
  return planner_.Samples(sig) + pending < static_cast<uint64_t>(budget);
}

void SweepDriver::Close(ContextPlan& c) {
  c.window_open = false;
  const RangeCalls::Stopped stopped = calls_.Stop();
  calls_.SetInProgress(false);
  bool productive = false;
  if (!stopped.ok || !stopped.all_passes_submitted) {
    // The context failed, or CUPTI wants more passes than the one the sweep measures.
    DropWanted(c);
    calls_.Finished(/*decoded=*/false);
  } else if (std::optional<size_t> ranges = calls_.Decode();
             !ranges || *ranges != c.windows[0].size()) {
    DropWanted(c);
    calls_.Finished(/*decoded=*/ranges.has_value());
  } else {
    productive = Keep(c, *ranges);
    calls_.Finished(/*decoded=*/true);
  }
  c.windows.clear();
  c.pending.clear();
  c.idle_in_row = 0;
  Backoff(c, productive);
}

bool SweepDriver::Keep(ContextPlan& c, size_t ranges) {
  bool kept = false;
  std::vector<RangeMatch> matches = planner_.Match(c.windows, ranges);
  for (size_t i = 0; i < matches.size(); ++i) {
    RangeMatch& m = matches[i];
    if (!m.complete) continue;  // (one pass: every decoded range is)
    // A sample within the budget, or a further one of a launch measured anyway.
    const bool sample = m.wanted && !planner_.BudgetSpent(m.sig);
    if (!sample && !m.extra) {
      ++planner_.stats().not_kept;
      continue;
    }
    if (!calls_.Keep(i, m)) {
      if (sample)
        planner_.SetDropped(DropReason::kEvaluate);
      else
        ++planner_.stats().not_kept;
    } else if (sample) {
      planner_.SetComplete(m.sig);
      kept = true;
    } else {
      ++planner_.stats().extra_kept;
    }
  }
  return kept;
}

void SweepDriver::DropWanted(const ContextPlan& c) {
  uint64_t wanted = 0;
  for (const Launch& launch : c.windows[0]) wanted += launch.wanted ? 1 : 0;
  if (wanted > 0) planner_.SetDropped(DropReason::kNotDecoded, wanted);
}

void SweepDriver::Backoff(ContextPlan& c, bool productive) {
  CounterStats& stats = planner_.stats();
  if (productive) {
    c.unproductive = 0;
    c.backoff = 0;
    return;
  }
  ++stats.windows_unproductive;
  if (++c.unproductive < kFailuresBeforeBackoff) return;
  c.backoff = std::min(std::max(kFirstBackoff, 2 * c.backoff), kMaxBackoff);
  c.start_after = c.seen + c.backoff;
  ++stats.backoffs;
  stats.longest_backoff = std::max<uint64_t>(stats.longest_backoff, c.backoff);
}

}  // namespace cuscope::collect
