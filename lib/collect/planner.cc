#include "lib/collect/planner.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/model/demangle.h"
#include "lib/model/metrics.h"

namespace cuscope::collect {

bool NeedsInstrumentedCounters(const CounterOptions& options) {
  for (const std::string& name : metrics::ExpandMetrics(options.metrics)) {
    if (name.rfind("smsp__sass_", 0) == 0) return true;
  }
  return false;
}

LaunchMode ChooseLaunchMode(const CounterOptions& options, size_t passes) {
  // Without the sweep: a bounded number of samples per signature costs little to replay
  // and gives exact values; every launch: rotate, which replays nothing.
  const LaunchMode otherwise =
      options.per_signature == 0 ? LaunchMode::kRotate : LaunchMode::kKernelReplay;
  switch (options.replay) {
    case ReplayMode::kRotate:
      return LaunchMode::kRotate;
    case ReplayMode::kKernel:
      return LaunchMode::kKernelReplay;
    case ReplayMode::kSweep:
      if (NeedsInstrumentedCounters(options)) return LaunchMode::kRefused;
      if (passes == 0) return LaunchMode::kPending;
      return passes == 1 ? LaunchMode::kSweep : LaunchMode::kRefused;
    case ReplayMode::kAuto:
      break;
  }
  if (NeedsInstrumentedCounters(options)) return otherwise;
  if (passes == 0) return LaunchMode::kPending;
  return passes == 1 ? LaunchMode::kSweep : otherwise;
}

std::string SweepRefusal(const CounterOptions& options, size_t passes) {
  const std::string why =
      NeedsInstrumentedCounters(options)
          ? std::string(
                "it has instrumented counters (smsp__sass_*), which a window opened "
                "inside a launch's call misses")
          : absl::StrCat("it takes ", passes, " passes");
  return absl::StrCat(
      "--replay=sweep measures configurations of one pass without instrumented counters, and ", why,
      ": no counters (--replay=auto, kernel or rotate measure it)");
}

bool IsNcclKernel(std::string_view demangled) {
  // The function's own name: up to its parameters, past a return type ("void "), its
  // namespaces, and without template arguments.
  std::string_view name = demangled.substr(0, demangled.find('('));
  if (const size_t angle = name.find('<'); angle != std::string_view::npos) {
    name = name.substr(0, angle);
  }
  if (const size_t space = name.rfind(' '); space != std::string_view::npos) {
    name = name.substr(space + 1);
  }
  if (const size_t colons = name.rfind("::"); colons != std::string_view::npos) {
    name = name.substr(colons + 2);
  }
  return name.rfind("nccl", 0) == 0 && name.find("Kernel") != std::string_view::npos;
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
      mode_(rotate ? LaunchMode::kRotate : LaunchMode::kKernelReplay),
      kernels_(Filter(options.kernels)),
      regions_(Filter(options.regions)),
      budget_(rotate && !region_mode ? options.rotate_budget_pct : 0) {}

void Planner::SetMode(LaunchMode mode) {
  if (region_mode_) return;
  mode_ = mode;
  rotate_ = mode == LaunchMode::kRotate || mode == LaunchMode::kSweep;
  budget_ = SetBudget(mode == LaunchMode::kRotate ? options_.rotate_budget_pct : 0);
}

void Planner::set_passes(size_t passes) {
  passes_ = passes;
  if (mode_ == LaunchMode::kPending) SetMode(ChooseLaunchMode(options_, passes));
}

const char* Planner::StrategyName() const {
  if (region_mode_) return "region (user range)";
  switch (mode_) {
    case LaunchMode::kSweep:
      return "sweep";
    case LaunchMode::kRotate:
      return "rotate";
    case LaunchMode::kKernelReplay:
      return "kernel replay";
    case LaunchMode::kPending:
    case LaunchMode::kRefused:
      break;
  }
  return "none";
}

const std::pair<std::string, bool>& Planner::KernelName(const char* symbol, bool* nccl) {
  // The text is compared too: CUPTI's pointer can be reused for another kernel's name
  // once a module is unloaded (JIT-compiled kernels), and a stale name would also make
  // the launch's own kernel record look like one of CUPTI's (MeasuredLaunches).
  CachedName& cached = names_[symbol];
  if (!cached.set || cached.symbol != symbol) {
    cached.set = true;
    cached.symbol = symbol;
    cached.value.first = model::Demangle(symbol, model::DemangleLimit::kLong);
    cached.nccl = IsNcclKernel(cached.value.first);
    cached.value.second = !cached.nccl && (!kernels_ || kernels_->Search(cached.value.first));
  }
  if (nccl != nullptr) *nccl = cached.nccl;
  return cached.value;
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

bool Planner::CanSettle() const {
  return !region_mode_ && options_.regions.empty() &&
         (options_.per_signature > 0 || options_.launch_count > 0);
}

bool Planner::Settled(const Signature& sig, bool matches) const {
  if (!CanSettle()) return false;
  if (!matches) return true;
  if (options_.launch_count > 0 && stats_.launches_measured >= options_.launch_count) return true;
  return BudgetSpent(sig);
}

SettledSignatures Planner::SettledSnapshot() const {
  SettledSignatures s;
  if (!CanSettle()) return s;
  s.all = options_.launch_count > 0 && stats_.launches_measured >= options_.launch_count;
  for (const auto& [sig, n] : samples_) {
    if (BudgetSpent(sig)) s.spent.insert(sig);
  }
  for (const auto& [symbol, cached] : names_) {
    if (cached.set && !cached.value.second) s.unmatched.insert(cached.value.first);
  }
  return s;
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

bool Planner::ExtraSample(const Signature& sig, bool matches, const RegionStack& regions) {
  if (!matches || mode_ != LaunchMode::kSweep) return false;
  if (options_.launch_count > 0 && stats_.launches_measured >= options_.launch_count) {
    return false;
  }
  // Spent only after launch_skip matching launches went by (WantSample).
  return BudgetSpent(sig) && InMatchingRegion(regions);
}

uint32_t Planner::Intern(const Signature& sig) {
  auto it = ids_.find(sig);
  if (it != ids_.end()) return it->second;
  const uint32_t id = static_cast<uint32_t>(signatures_.size());
  signatures_.push_back(sig);
  ids_.emplace(sig, id);
  return id;
}

void Planner::SetDropped(DropReason why, uint64_t n) {
  stats_.sets_dropped += n;
  stats_.dropped_by[static_cast<int>(why)] += n;
}

const char* DropReasonName(DropReason r) {
  switch (r) {
    case DropReason::kMismatch:
      return "mismatch";
    case DropReason::kNotDecoded:
      return "not decoded";
    case DropReason::kInterrupted:
      return "left the period";
    case DropReason::kGraph:
      return "graph launch";
    case DropReason::kEnd:
      return "incomplete at end";
    case DropReason::kEvaluate:
      return "evaluation failed";
    case DropReason::kUnsafe:
      return "cut by an NCCL kernel or stream capture";
    case DropReason::kCount:
      break;
  }
  return "?";
}

std::vector<RangeMatch> Planner::Match(const std::vector<std::vector<Launch>>& windows,
                                       size_t ranges, DropReason missing) {
  const size_t launched = windows.empty() ? 0 : windows[0].size();
  // CUPTI may decode fewer ranges than the window had launches (a launch entered
  // twice: launch_counters.cc). Ranges are matched to launches in order and the rest
  // count as dropped.
  if (ranges < launched) SetDropped(DropReason::kNotDecoded, launched - ranges);
  std::vector<RangeMatch> out;
  for (size_t i = 0; i < ranges && i < launched; ++i) {
    RangeMatch& m = out.emplace_back();
    m.complete = true;
    DropReason why = missing;
    for (const auto& pass : windows) {
      if (i >= pass.size() || pass[i].sig != windows[0][i].sig) {
        m.complete = false;
        if (i < pass.size()) why = DropReason::kMismatch;
        break;
      }
      m.wanted = m.wanted && pass[i].wanted;
      m.extra = m.extra && (pass[i].wanted || pass[i].extra);
      if (pass[i].correlation_id != 0) m.correlation_ids.push_back(pass[i].correlation_id);
    }
    if (m.complete && rotate_ && windows.size() < passes_) m.complete = false;
    if (!m.complete) {
      SetDropped(why);
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

std::string Planner::Describe() const {
  const CounterStats& s = stats_;
  std::string out = absl::StrFormat("%d launches measured, %d samples complete",
                                    s.launches_measured, s.sets_complete);
  if (!region_mode_) {
    absl::StrAppend(&out, " (", samples_.size(), " signatures sampled");
    if (!signatures_.empty()) absl::StrAppend(&out, " of ", signatures_.size(), " seen");
    if (options_.per_signature > 0) {
      size_t done = 0;
      for (const auto& [sig, n] : samples_) {
        done += n >= static_cast<uint64_t>(options_.per_signature) ? 1 : 0;
      }
      absl::StrAppend(&out, ", ", done, " at the budget of ", options_.per_signature);
    }
    absl::StrAppend(&out, ")");
  }
  absl::StrAppend(&out, ", ", s.sets_dropped, " dropped");
  std::string why;
  for (int r = 0; r < static_cast<int>(DropReason::kCount); ++r) {
    if (s.dropped_by[r] == 0) continue;
    absl::StrAppend(&why, why.empty() ? "" : ", ", DropReasonName(static_cast<DropReason>(r)), " ",
                    s.dropped_by[r]);
  }
  if (!why.empty()) absl::StrAppend(&out, " (", why, ")");
  if (s.extra_kept > 0) {
    absl::StrAppend(&out, ", ", s.extra_kept, " further samples of launches measured anyway");
  }
  if (rotate_ && !region_mode_ && s.not_kept > 0) {
    absl::StrAppend(&out, ", ", s.not_kept, " ranges not kept (filters or budget)");
  }
  if (sweep()) {
    absl::StrAppend(&out, "; ", s.windows_opened, " windows opened");
    if (s.windows_unproductive > 0) {
      absl::StrAppend(&out, " (", s.windows_unproductive, " kept no sample)");
    }
    if (s.backoffs > 0) {
      absl::StrAppend(&out, "; backed off ", s.backoffs,
                      " times after windows in a row kept no sample (waits up to ",
                      s.longest_backoff, " launches; ", s.backoff_launches,
                      " wanted launches not measured)");
    }
  } else if (rotate_ && !region_mode_) {
    absl::StrAppend(&out, "; ", s.sets_started, " sets begun");
    std::string waits;
    if (s.sets_held_off > 0) {
      absl::StrAppend(&waits, s.sets_held_off,
                      " times held off: a loop too short for the passes before");
    }
    if (s.sets_deferred > 0) {
      absl::StrAppend(&waits, waits.empty() ? "" : "; ", s.sets_deferred,
                      " times deferred: a loop not yet as long as a set");
    }
    if (!waits.empty()) absl::StrAppend(&out, " (", waits, ")");
    if (std::string b = budget_.Describe(); !b.empty()) absl::StrAppend(&out, "; ", b);
    if (s.period > 0) absl::StrAppend(&out, ", period ", s.period, " launches");
  }
  if (s.nccl_launches > 0 || s.captured_launches > 0) {
    absl::StrAppend(&out, "; never measured: ", s.nccl_launches, " NCCL kernel launches, ",
                    s.captured_launches, " launches during stream capture");
  }
  return out;
}

std::string Planner::ReplayAdvice() const {
  const CounterStats& s = stats_;
  // At least seconds of replay, and launches seen ten times over those measured.
  if (rotate_ || region_mode_ || s.launches_measured < 10 || s.measure_ns < 2000000000ull ||
      s.launches_seen < 10 * s.launches_measured) {
    return "";
  }
  return absl::StrFormat(
      "kernel replay took %.1f s for %d launches (%.0f ms each) in a program of %d kernel "
      "launches: for a loop, --replay=rotate --per-signature=%d measures each signature on "
      "later launches without replay, once the loop has run twice as many times as the "
      "metrics take passes, then stops measuring%s (docs/counters.md)",
      s.measure_ns / 1e9, s.launches_measured, s.measure_ns / 1e6 / s.launches_measured,
      s.launches_seen, std::max(1, options_.per_signature),
      NeedsInstrumentedCounters(options_)
          ? "; with instruction counters, the launches it measures get kernel records made "
            "from their launch calls"
          : "");
}

std::string Planner::ReplayAdviceOnce() {
  if (replay_advice_given_) return "";
  std::string advice = ReplayAdvice();
  replay_advice_given_ = !advice.empty();
  return advice;
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
