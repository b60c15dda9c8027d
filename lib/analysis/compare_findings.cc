#include "lib/analysis/compare_findings.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "lib/analysis/advise.h"

namespace cuscope::analysis {
namespace {

// Rule, kernel and signature (blocks per grid, threads per block), and whether it is a
// start-up finding (evidence kStartupEvidence, advise_rules.h): where in the timeline a rule
// fired (its region, its time range) moves between runs without being another finding,
// but two signatures of one kernel are two, and a rule's start-up finding is not its
// finding over the steps.
using Key = std::tuple<std::string, std::string, uint64_t, uint64_t, uint64_t>;

// A named number of the evidence as a count, 0 when absent.
uint64_t EvidenceCount(const model::Finding& f, const char* name) {
  for (const auto& [key, value] : f.evidence) {
    if (key == name) return value > 0 ? static_cast<uint64_t>(value) : 0;
  }
  return 0;
}

Key KeyOf(const model::Finding& f) {
  const uint64_t startup = EvidenceCount(f, "startup") > 0 ? 1 : 0;
  if (f.kernel.empty()) return {f.rule, f.kernel, 0, 0, startup};
  return {f.rule, f.kernel, EvidenceCount(f, "grid_blocks"), EvidenceCount(f, "block_threads"),
          startup};
}

// Each key's finding with the largest gain (a rule may fire twice at one place).
std::map<Key, const model::Finding*> ByKey(const std::vector<model::Finding>& findings) {
  std::map<Key, const model::Finding*> out;
  for (const model::Finding& f : findings) {
    const model::Finding*& slot = out[KeyOf(f)];
    if (slot == nullptr || f.gain_ns > slot->gain_ns) slot = &f;
  }
  return out;
}

std::set<std::string> MetricsOf(const model::Profile& p) {
  std::set<std::string> out;
  for (const model::CounterSet& set : p.counters) {
    for (const auto& [metric, value] : set.values) out.insert(p.str(metric));
  }
  return out;
}

double Gain(const FindingChange& c) { return std::max(c.base_gain_ns, c.next_gain_ns); }

// Appeared, resolved and not compared first, each by estimated gain (largest first), then
// those that stayed by the change of their gain.
void Order(std::vector<FindingChange>& changes) {
  std::stable_sort(changes.begin(), changes.end(),
                   [](const FindingChange& x, const FindingChange& y) {
                     const bool xs = x.kind == FindingChangeKind::kStayed,
                                ys = y.kind == FindingChangeKind::kStayed;
                     if (xs != ys) return ys;
                     if (!xs) return Gain(x) > Gain(y);
                     return std::fabs(x.next_gain_ns - x.base_gain_ns) >
                            std::fabs(y.next_gain_ns - y.base_gain_ns);
                   });
}

}  // namespace

const char* FindingChangeKindName(FindingChangeKind k) {
  switch (k) {
    case FindingChangeKind::kAppeared:
      return "appeared";
    case FindingChangeKind::kResolved:
      return "resolved";
    case FindingChangeKind::kStayed:
      return "stayed";
    case FindingChangeKind::kNotCompared:
      return "not compared";
  }
  return "stayed";
}

std::vector<FindingChange> CompareFindings(const std::vector<model::Finding>& base,
                                           const std::vector<model::Finding>& next) {
  const std::map<Key, const model::Finding*> b = ByKey(base), n = ByKey(next);
  std::vector<FindingChange> out;
  auto add = [&out](FindingChangeKind kind, const Key& key, const model::Finding* before,
                    const model::Finding* after) {
    FindingChange c;
    c.kind = kind;
    std::tie(c.rule, c.kernel, c.grid_blocks, c.block_threads, std::ignore) = key;
    c.region = after != nullptr ? after->region : before->region;
    c.base_gain_ns = before != nullptr ? before->gain_ns : 0;
    c.next_gain_ns = after != nullptr ? after->gain_ns : 0;
    c.summary = after != nullptr ? after->summary : before->summary;
    const model::Finding& has = after != nullptr ? *after : *before;
    c.gpu_basis = has.basis == model::GainBasis::kGpu;
    c.basis_ns = has.gain_pct > 0 ? has.gain_ns * 100 / has.gain_pct : 0;
    out.push_back(std::move(c));
  };
  // Same rule, kernel and signature: stayed. Then the rest of one rule on one kernel
  // pair up by gain, largest first: a kernel whose grid changed (a tail-wave fix, another
  // batch size) and still fires the rule has the finding still, on its new signature.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<Key, const model::Finding*>>>
      left_base, left_next;
  for (const auto& [key, f] : n) {
    auto it = b.find(key);
    if (it != b.end()) {
      add(FindingChangeKind::kStayed, key, it->second, f);
    } else if (!f->kernel.empty()) {
      left_next[{f->rule, f->kernel}].push_back({key, f});
    } else {
      add(FindingChangeKind::kAppeared, key, nullptr, f);
    }
  }
  for (const auto& [key, f] : b) {
    if (n.count(key) != 0) continue;
    if (!f->kernel.empty()) {
      left_base[{f->rule, f->kernel}].push_back({key, f});
    } else {
      add(FindingChangeKind::kResolved, key, f, nullptr);
    }
  }
  auto by_gain = [](const std::pair<Key, const model::Finding*>& x,
                    const std::pair<Key, const model::Finding*>& y) {
    return x.second->gain_ns > y.second->gain_ns;
  };
  for (auto& [place, news] : left_next) {
    std::vector<std::pair<Key, const model::Finding*>>& olds = left_base[place];
    std::stable_sort(news.begin(), news.end(), by_gain);
    std::stable_sort(olds.begin(), olds.end(), by_gain);
    for (size_t i = 0; i < news.size(); ++i) {
      if (i < olds.size()) {
        add(FindingChangeKind::kStayed, news[i].first, olds[i].second, news[i].second);
      } else {
        add(FindingChangeKind::kAppeared, news[i].first, nullptr, news[i].second);
      }
    }
    olds.erase(olds.begin(), olds.begin() + std::min(olds.size(), news.size()));
  }
  for (const auto& [place, olds] : left_base) {
    for (const auto& [key, f] : olds) add(FindingChangeKind::kResolved, key, f, nullptr);
  }
  Order(out);
  return out;
}

namespace {

// Kernel names that have counter sets.
std::set<std::string> MeasuredKernels(const model::Profile& p) {
  std::set<std::string> out;
  for (const model::CounterSet& set : p.counters) out.insert(p.str(set.name));
  return out;
}

// The finding of `c`'s rule and kernel in `findings` (its signature when it names one,
// else the first of the rule and kernel), or null.
const model::Finding* FindAgain(const FindingChange& c,
                                const std::vector<model::Finding>& findings) {
  const model::Finding* any = nullptr;
  for (const model::Finding& f : findings) {
    if (f.rule != c.rule || f.kernel != c.kernel) continue;
    const Key key = KeyOf(f);
    if (std::get<2>(key) == c.grid_blocks && std::get<3>(key) == c.block_threads) return &f;
    if (any == nullptr) any = &f;
  }
  return any;
}

// Timeline rules that rest on copy and memset records alone.
bool FromCopies(const std::string& rule) {
  return rule == "pageable_copies" || rule == "default_stream" || rule == "small_dtoh_reads";
}

// The profile whose profiler left out records the timeline rule `rule` rests on (NEW
// when both did), or kNeither.
FindingSide RecordsLeftOut(const std::string& rule, const ProfilerEffects& base,
                           const ProfilerEffects& next) {
  auto left_out = [&rule](const ProfilerEffects& fx) {
    return !fx.memory_complete() || (!FromCopies(rule) && !fx.kernel_records_complete());
  };
  return left_out(next)   ? FindingSide::kNext
         : left_out(base) ? FindingSide::kBase
                          : FindingSide::kNeither;
}

}  // namespace

void ConfirmFindingChanges(const model::Profile& base, const ProfilerEffects& base_fx,
                           const model::Profile& next, const ProfilerEffects& next_fx,
                           const model::AdviseThresholds& thresholds,
                           std::vector<FindingChange>& changes) {
  model::AdviseThresholds no_minimum = thresholds;
  no_minimum.min_gain_pct = 0;
  // Computed once each, when a change needs them.
  std::vector<model::Finding> again[2];
  std::set<std::string> measured[2];
  bool computed[2] = {false, false};
  for (FindingChange& c : changes) {
    if (c.kind != FindingChangeKind::kAppeared && c.kind != FindingChangeKind::kResolved) continue;
    // The profile that lacks the finding: NEW for a resolved one, BASE for an appeared one.
    const bool in_next = c.kind == FindingChangeKind::kResolved;
    const int i = in_next ? 1 : 0;
    if (!computed[i]) {
      again[i] = Advise(in_next ? next : base, no_minimum);
      measured[i] = MeasuredKernels(in_next ? next : base);
      computed[i] = true;
    }
    const FindingSide lacking = in_next ? FindingSide::kNext : FindingSide::kBase;
    // Found, with a gain above the minimum share of the basis where it fired: the
    // program's quantity is still there.
    const model::Finding* f = FindAgain(c, again[i]);
    if (f != nullptr && c.basis_ns > 0 &&
        f->gain_ns >= thresholds.min_gain_pct / 100 * c.basis_ns) {
      c.kind = FindingChangeKind::kStayed;
      c.side = lacking;
      c.why = FindingWhy::kUnderMinimum;
      (in_next ? c.next_gain_ns : c.base_gain_ns) = f->gain_ns;
      continue;
    }
    if (c.gpu_basis && !c.kernel.empty()) {
      if (measured[i].count(c.kernel) == 0) {
        c.kind = FindingChangeKind::kNotCompared;
        c.side = lacking;
        c.why = FindingWhy::kNoCounters;
      }
      continue;
    }
    const FindingSide left_out = RecordsLeftOut(c.rule, base_fx, next_fx);
    if (left_out != FindingSide::kNeither) {
      c.kind = FindingChangeKind::kNotCompared;
      c.side = left_out;
      c.why = FindingWhy::kRecordsLeftOut;
    }
  }
  Order(changes);
}

std::vector<VerdictChange> CompareVerdicts(const std::vector<KernelCounters>& base,
                                           const std::vector<KernelCounters>& next) {
  std::vector<VerdictChange> out;
  for (const KernelCounters& n : next) {
    if (n.region) continue;
    for (const KernelCounters& b : base) {
      if (b.region || b.name != n.name || !(b.grid == n.grid) || !(b.block == n.block)) continue;
      const std::string before = VerdictName(b.verdict.bound);
      const std::string after = VerdictName(n.verdict.bound);
      if (before != after) out.push_back({n.name, n.grid, n.block, before, after});
      break;
    }
  }
  return out;
}

MetricsDifference CompareMeasuredMetrics(const model::Profile& base, const model::Profile& next) {
  const std::set<std::string> b = MetricsOf(base), n = MetricsOf(next);
  MetricsDifference d;
  std::set_difference(b.begin(), b.end(), n.begin(), n.end(), std::back_inserter(d.only_base));
  std::set_difference(n.begin(), n.end(), b.begin(), b.end(), std::back_inserter(d.only_next));
  return d;
}

}  // namespace cuscope::analysis
