#include "lib/analysis/compare_basis.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "lib/analysis/compare_totals.h"
#include "lib/analysis/summary.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {
namespace {

// The recorded value of a setting, or "" when the profile recorded none.
std::string SettingOf(const model::RunNotes& notes, const std::string& name) {
  for (const auto& [key, value] : notes.settings) {
    if (key == name) return value;
  }
  return "";
}

// The "trace" setting leaves copies and memsets out: it names neither "memory",
// "memcpy" nor "memset", and is not "all".
bool MemoryUntraced(const std::string& trace) {
  if (trace.empty() || trace == "all") return false;
  return !absl::StrContains(trace, "memory") && !absl::StrContains(trace, "memcpy") &&
         !absl::StrContains(trace, "memset");
}

// How a launch was timed: by CUPTI (usable and not measured); measured with counters and
// in its profile's kernel time (its kernel measured at every launch); measured and left
// out of it; or not at all (unusable times).
enum class Timing : uint8_t { kTraced, kMeasuredTimed, kMeasured, kUnusable };

struct Launch {
  uint32_t correlation_id = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  Timing timing = Timing::kTraced;
};

// Each kernel's launches, by display name, in launch order.
std::map<std::string, std::vector<Launch>> LaunchesByName(const model::Profile& p) {
  std::map<std::string, std::vector<Launch>> out;
  KernelNameIndex names(p);
  const std::vector<uint8_t> timed = KernelTimeMask(p);
  std::vector<std::vector<Launch>*> by_id;
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const model::KernelRecord& k = p.kernels[i];
    const uint32_t id = names.Id(k);
    if (id == by_id.size()) by_id.push_back(&out[names.Name(id)]);
    Launch l;
    l.correlation_id = k.correlation_id;
    l.start_ns = k.start_ns;
    l.duration_ns = k.duration_ns();
    const bool measured = (k.flags & model::kKernelCountersMeasured) != 0;
    l.timing = !timed[i]  ? (measured ? Timing::kMeasured : Timing::kUnusable)
               : measured ? Timing::kMeasuredTimed
                          : Timing::kTraced;
    by_id[id]->push_back(l);
  }
  for (auto& [name, launches] : out) {
    std::stable_sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) {
      return std::tie(a.correlation_id, a.start_ns) < std::tie(b.correlation_id, b.start_ns);
    });
  }
  return out;
}

// Whether a launch counts where its partner (if any) was timed alike: traced, or measured
// at every launch of its kernel by the same strategy on both sides.
bool Alike(const Launch& l, bool same_strategy) {
  return l.timing == Timing::kTraced || (same_strategy && l.timing == Timing::kMeasuredTimed);
}

void Count(ComparableSide& side, const Launch& l) {
  ++side.launches;
  model::AddTo(side.total_ns, l.duration_ns);
}

void Note(ComparableKernel& k, LeftOut why) {
  if (k.why == LeftOut::kNone) k.why = why;
}

// Pairs a kernel's launches (see ComparableKernel). `same_strategy`: both profiles
// measured with one counter strategy, so measured pairs are alike.
ComparableKernel PairLaunches(const std::vector<Launch>& base, const std::vector<Launch>& next,
                              bool same_strategy, bool base_complete, bool next_complete) {
  ComparableKernel k;
  const size_t paired = std::min(base.size(), next.size());
  for (size_t i = 0; i < paired; ++i) {
    const Launch& b = base[i];
    const Launch& n = next[i];
    if (b.timing == n.timing && Alike(b, same_strategy)) {
      Count(k.base, b);
      Count(k.next, n);
      continue;
    }
    ++k.base.left_out;
    ++k.next.left_out;
    const bool unusable = b.timing == Timing::kUnusable || n.timing == Timing::kUnusable;
    Note(k, unusable ? LeftOut::kUnusable : LeftOut::kMeasured);
  }
  // Launches without a partner: the program's own when the shorter side kept every record.
  auto tail = [&k, same_strategy](const std::vector<Launch>& longer, size_t from,
                                  bool other_complete, ComparableSide& side) {
    for (size_t i = from; i < longer.size(); ++i) {
      const Launch& l = longer[i];
      if (other_complete && Alike(l, same_strategy)) {
        Count(side, l);
        continue;
      }
      ++side.left_out;
      Note(k, !other_complete                 ? LeftOut::kNoRecord
              : l.timing == Timing::kUnusable ? LeftOut::kUnusable
                                              : LeftOut::kMeasured);
    }
  };
  tail(base, paired, next_complete, k.base);
  tail(next, paired, base_complete, k.next);
  return k;
}

void AddSide(ComparableSide& to, const ComparableSide& from) {
  model::AddTo(to.launches, from.launches);
  model::AddTo(to.total_ns, from.total_ns);
  model::AddTo(to.left_out, from.left_out);
}

}  // namespace

ProfilerEffects EffectsOf(const model::Profile& p) {
  ProfilerEffects fx;
  const model::RunNotes& notes = p.run.notes;
  fx.counters = notes.counters_strategy;
  fx.settings = notes.settings;
  for (const model::KernelRecord& k : p.kernels) {
    if (k.flags & model::kKernelCountersMeasured) ++fx.measured_launches;
  }
  // Rotate holds records off while its sets run (the kernel_trace note): the launches it
  // measured without a record made for them have none.
  fx.copies_held = !notes.counters_kernel_trace.empty();
  if (fx.copies_held && notes.counters_launches_measured.has_value() &&
      *notes.counters_launches_measured > 0) {
    const uint64_t measured = static_cast<uint64_t>(*notes.counters_launches_measured);
    if (measured > fx.measured_launches)
      fx.launches_without_records = measured - fx.measured_launches;
  }
  fx.memory_untraced = MemoryUntraced(SettingOf(notes, "trace"));
  fx.dropped_records = p.run.dropped_records;
  double ms = 0;
  if (absl::SimpleAtod(notes.counters_measure_ms, &ms) && std::isfinite(ms) && ms > 0) {
    fx.held_ms = ms;
  }
  return fx;
}

double KernelTimeComparison::change_percent() const {
  return ChangePercent(static_cast<double>(base.total_ns), static_cast<double>(next.total_ns));
}

bool KernelTimeComparison::changed() const {
  const double pct = change_percent();
  return !(std::fabs(pct) <= kKernelTimeChangePct);  // an infinite change is one
}

KernelTimeComparison CompareKernelTime(const model::Profile& base, const ProfilerEffects& base_fx,
                                       const model::Profile& next, const ProfilerEffects& next_fx) {
  KernelTimeComparison c;
  const std::map<std::string, std::vector<Launch>> b = LaunchesByName(base);
  const std::map<std::string, std::vector<Launch>> n = LaunchesByName(next);
  const bool same_strategy = !base_fx.counters.empty() && base_fx.counters == next_fx.counters;
  const bool base_complete = base_fx.kernel_records_complete();
  const bool next_complete = next_fx.kernel_records_complete();
  static const std::vector<Launch> kNone;
  auto add = [&](const std::string& name, const std::vector<Launch>& bl,
                 const std::vector<Launch>& nl) {
    ComparableKernel k = PairLaunches(bl, nl, same_strategy, base_complete, next_complete);
    AddSide(c.base, k.base);
    AddSide(c.next, k.next);
    c.kernels.emplace(name, k);
  };
  for (const auto& [name, launches] : b) {
    auto it = n.find(name);
    add(name, launches, it != n.end() ? it->second : kNone);
  }
  for (const auto& [name, launches] : n) {
    if (b.count(name) == 0) add(name, kNone, launches);
  }
  return c;
}

}  // namespace cuscope::analysis
