#include "lib/collect/planner.h"

#include <algorithm>

#include "lib/model/demangle.h"
#include "lib/model/metrics.h"

namespace cuscope::collect {

bool UsesRotate(const CounterOptions& options) {
  switch (options.replay) {
    case ReplayMode::kRotate:
      return true;
    case ReplayMode::kKernel:
      return false;
    case ReplayMode::kAuto:
      break;
  }
  // A bounded number of samples per signature: replaying those few launches costs
  // little and gives exact values; every launch: rotate, which replays nothing.
  return options.per_signature == 0;
}

bool NeedsInstrumentedCounters(const CounterOptions& options) {
  for (const std::string& name : metrics::ExpandMetrics(options.metrics)) {
    if (name.rfind("smsp__sass_", 0) == 0) return true;
  }
  return false;
}

namespace {

// The filter of a non-empty pattern (validated by the settings).
std::optional<model::CachedPattern> Filter(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return model::CachedPattern(model::Pattern::CompileOrNothing(text));
}

}  // namespace

Planner::Planner(const CounterOptions& options, bool rotate, bool region_mode)
    : options_(options),
      rotate_(rotate),
      region_mode_(region_mode),
      kernels_(Filter(options.kernels)),
      regions_(Filter(options.regions)) {}

const std::pair<std::string, bool>& Planner::KernelName(const char* symbol) {
  auto it = names_.find(symbol);
  if (it == names_.end()) {
    std::string name = model::Demangle(symbol);
    bool matches = !kernels_ || kernels_->Search(name);
    it = names_.emplace(symbol, std::make_pair(std::move(name), matches)).first;
  }
  return it->second;
}

bool Planner::InMatchingRegion(const RegionStack& regions) {
  if (!regions_) return true;
  for (const auto& name : regions.ThreadRegions()) {
    if (regions_->Search(name)) return true;
  }
  return false;
}

bool Planner::BudgetSpent(const Signature& sig) const {
  if (options_.per_signature <= 0) return false;
  auto it = samples_.find(sig);
  return it != samples_.end() && it->second >= static_cast<uint64_t>(options_.per_signature);
}

uint64_t Planner::Samples(const Signature& sig) const {
  auto it = samples_.find(sig);
  return it == samples_.end() ? 0 : it->second;
}

bool Planner::WantSample(const Signature& sig, bool matches, const RegionStack& regions) {
  if (!matches) return false;
  // The cheap "done" checks before the region regexes. Either can hold only after
  // launch_skip matching launches went by, so skipping the count below changes nothing.
  if (options_.launch_count > 0 && stats_.launches_measured >= options_.launch_count) {
    return false;
  }
  if (BudgetSpent(sig)) return false;
  if (!InMatchingRegion(regions)) return false;
  ++matching_seen_;
  return matching_seen_ > options_.launch_skip;
}

bool Planner::MustCloseBefore(const ContextPlan& c, const Signature& sig, bool want) const {
  return c.window_open && (!want || c.window_sig != sig || WindowFull(c));
}

bool Planner::ShouldOpenAfter(const ContextPlan& c) const {
  if (!c.last_wanted || !c.last_sig) return false;
  // A new set only while the signature's budget lasts.
  return !(c.windows.empty() && BudgetSpent(*c.last_sig));
}

void Planner::OpenWindow(ContextPlan& c, const Signature& sig, size_t max_ranges) {
  c.window_open = true;
  c.window_sig = sig;
  // Windows grow as a signature keeps completing sets: few Start/Stop calls in long
  // loops, little waste where a signature stops repeating.
  size_t& next = window_size_[sig];
  if (next == 0) next = 1;
  c.window_cap = std::min<size_t>(next, max_ranges);
  if (options_.per_signature > 0) {
    uint64_t have = samples_[sig];
    uint64_t limit = static_cast<uint64_t>(options_.per_signature);
    uint64_t need = limit - std::min(have, limit);
    c.window_cap = std::max<size_t>(1, std::min<size_t>(c.window_cap, need));
  }
  if (c.windows.size() + 1 >= passes_) next = std::min<size_t>(next * 2, max_ranges);
  c.windows.emplace_back();
}

std::vector<RangeMatch> Planner::Match(const std::vector<std::vector<Launch>>& windows,
                                       size_t ranges) {
  const size_t launched = windows.empty() ? 0 : windows[0].size();
  // Seen on the H200 with user replay: a window of k launches decoded k/2 ranges.
  // Ranges are matched to launches in order and the rest count as dropped.
  if (ranges < launched) stats_.sets_dropped += launched - ranges;
  std::vector<RangeMatch> out;
  for (size_t i = 0; i < ranges && i < launched; ++i) {
    RangeMatch& m = out.emplace_back();
    m.complete = true;
    for (const auto& pass : windows) {
      if (i >= pass.size() || pass[i].sig != windows[0][i].sig) {
        m.complete = false;
        break;
      }
      if (pass[i].correlation_id != 0) m.correlation_ids.push_back(pass[i].correlation_id);
    }
    if (m.complete && rotate_ && windows.size() < passes_) m.complete = false;
    if (!m.complete) {
      ++stats_.sets_dropped;
      continue;
    }
    m.sig = windows[0][i].sig;
  }
  return out;
}

void Planner::SetComplete(const Signature& sig) {
  ++samples_[sig];
  ++stats_.sets_complete;
}

bool Planner::WantRegion(const std::string& name) {
  if (!regions_ || !regions_->Search(name)) return false;
  // The passes of a set all measure the same region, by name: its path may differ
  // between instances (`step 3/forward`), the set is shown with the first one.
  if (!region_set_name_.empty() && region_set_name_ != name) return false;
  if (region_set_name_.empty()) {
    ++matching_seen_;
    if (matching_seen_ <= options_.launch_skip) return false;
    if (options_.launch_count > 0 && stats_.launches_measured >= options_.launch_count) {
      return false;
    }
    if (options_.per_signature > 0 &&
        region_samples_[name] >= static_cast<uint64_t>(options_.per_signature)) {
      return false;
    }
  }
  return true;
}

void Planner::AddRegionPass(ContextPlan& c, const std::string& name, const std::string& path) {
  if (region_set_name_.empty()) {
    region_set_name_ = name;
    region_set_path_ = path;
  }
  // Every pass carries the set's first path, so that Match matches them.
  Signature sig{region_set_path_, {0, 0, 0}, {0, 0, 0}};
  c.windows.push_back({Launch{sig, 0}});
  ++stats_.launches_measured;
}

void Planner::EndRegionSet(bool completed) {
  if (completed) ++region_samples_[region_set_name_];
  region_set_name_.clear();
  region_set_path_.clear();
}

}  // namespace cuscope::collect
