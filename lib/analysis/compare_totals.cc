#include "lib/analysis/compare_totals.h"

#include <algorithm>
#include <map>
#include <utility>

#include "lib/analysis/advise_context.h"

namespace cuscope::analysis {
namespace {

Totals TotalsOf(const DurationStats& stats, uint64_t bytes) {
  return {stats.count, bytes, stats.total_ns};
}

std::vector<TotalsDelta> Ranked(std::map<std::string, TotalsDelta>& by_name) {
  std::vector<TotalsDelta> out;
  out.reserve(by_name.size());
  for (auto& [name, d] : by_name) {
    d.name = name;
    out.push_back(std::move(d));
  }
  // by_name is in name order: a stable sort keeps it among equal changes.
  std::stable_sort(out.begin(), out.end(), [](const TotalsDelta& a, const TotalsDelta& b) {
    return model::Magnitude(a.time_change_ns()) > model::Magnitude(b.time_change_ns());
  });
  return out;
}

}  // namespace

TotalsDelta SumOf(const std::vector<TotalsDelta>& rows, std::string name) {
  TotalsDelta sum;
  sum.name = std::move(name);
  for (const TotalsDelta& d : rows) {
    for (auto [from, to] : {std::pair{&d.base, &sum.base}, std::pair{&d.next, &sum.next}}) {
      model::AddTo(to->count, from->count);
      model::AddTo(to->bytes, from->bytes);
      model::AddTo(to->total_ns, from->total_ns);
    }
  }
  return sum;
}

std::vector<TotalsDelta> CompareMemory(const Summary& base, const Summary& next) {
  std::map<std::string, TotalsDelta> by_name;
  for (const MemorySummaryRow& r : base.memory) {
    by_name[r.operation].base = TotalsOf(r.stats, r.total_bytes);
  }
  for (const MemorySummaryRow& r : next.memory) {
    by_name[r.operation].next = TotalsOf(r.stats, r.total_bytes);
  }
  return Ranked(by_name);
}

std::vector<TotalsDelta> CompareApi(const Summary& base, const Summary& next) {
  std::map<std::string, TotalsDelta> by_name;
  for (const ApiSummaryRow& r : base.api) by_name[r.name].base = TotalsOf(r.stats, 0);
  for (const ApiSummaryRow& r : next.api) by_name[r.name].next = TotalsOf(r.stats, 0);
  for (auto& [name, d] : by_name) {
    const advise::ApiKind kind = advise::KindOfApi(name);
    d.synchronizing = kind == advise::ApiKind::kSync || kind == advise::ApiKind::kSyncCopy;
  }
  return Ranked(by_name);
}

}  // namespace cuscope::analysis
