#include "lib/collect/metric_catalog.h"

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/chips.h"
#include "lib/model/metrics.h"

namespace cuscope::collect {
namespace {

bool IsSet(const std::string& name) {
  const auto& sets = metrics::SetNames();
  return std::find(sets.begin(), sets.end(), name) != sets.end();
}

// Set names and the chip's metrics nearest to `name`, best first.
std::vector<std::string> NearestNames(MetricHost* host, const std::string& name, size_t count) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& set : metrics::SetNames()) {
    scored.emplace_back(EditDistance(name, set), set);
  }
  const std::string base = BaseName(name);
  for (const std::string& m : host->Nearest(name, count)) {
    scored.emplace_back(EditDistance(base, m.substr(m.rfind('.') + 1)), m.substr(m.rfind('.') + 1));
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < count; ++i) out.push_back(scored[i].second);
  return out;
}

bool ValidOn(MetricHost* host, const std::string& name) {
  const std::vector<std::string>& base = host->BaseMetrics();
  const std::string want = BaseName(name);
  bool known = std::any_of(base.begin(), base.end(), [&](const std::string& m) {
    return m.size() >= want.size() && m.compare(m.size() - want.size(), want.size(), want) == 0 &&
           (m.size() == want.size() || m[m.size() - want.size() - 1] == '.');
  });
  // The rollup and submetric are checked only when the base name exists (each
  // check builds a host object).
  return known && host->Validate(name).ok();
}

}  // namespace

absl::StatusOr<MetricHost*> HostFor(const std::string& chip) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* hosts = new std::map<std::string, std::unique_ptr<MetricHost>>;
  absl::MutexLock lock(&mu);
  auto it = hosts->find(chip);
  if (it != hosts->end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<MetricHost>> host = MetricHost::Create(chip);
  if (!host.ok()) return host.status();
  MetricHost* out = host->get();
  hosts->emplace(chip, std::move(*host));
  return out;
}

absl::Status CheckRequest(const std::vector<std::string>& request, const std::string& chip) {
  std::vector<std::string> chips;
  if (!chip.empty()) {
    chips.push_back(chip);
  } else {
    chips.push_back(kDefaultChip);  // most names are valid here: checked first
    for (const Chip& c : SupportedChips()) {
      if (c.name != std::string(kDefaultChip)) chips.push_back(c.name);
    }
  }
  for (const std::string& name : request) {
    if (IsSet(name)) continue;
    bool valid = false;
    // Every metric of every chip is a unit and a counter joined by "__" (a test checks
    // it): a name without one, most often a set name mistyped, is refused without
    // building each chip's host (0.2 to 0.4 s of CPU time).
    const bool looks_like_metric = name.find("__") != std::string::npos;
    for (const std::string& c : looks_like_metric ? chips : std::vector<std::string>{}) {
      absl::StatusOr<MetricHost*> host = HostFor(c);
      if (!host.ok()) {
        if (!chip.empty()) return host.status();
        continue;  // a chip this CUPTI does not know: the others decide
      }
      if ((valid = ValidOn(*host, name))) break;
    }
    if (valid) continue;
    absl::StatusOr<MetricHost*> host = HostFor(chips[0]);
    if (!host.ok()) return host.status();
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", name, "\" is neither a metric set (", absl::StrJoin(metrics::SetNames(), ", "),
        ") nor a metric ", chip.empty() ? "of any supported chip" : absl::StrCat("of ", chip),
        " (a base name plus a rollup such as .sum, .avg, .max or "
        ".sum.pct_of_peak_sustained_elapsed); nearest: ",
        absl::StrJoin(NearestNames(*host, name, 5), ", ")));
  }
  return absl::OkStatus();
}

absl::StatusOr<Resolution> ResolveFor(const std::string& chip,
                                      const std::vector<std::string>& request) {
  absl::StatusOr<MetricHost*> host = HostFor(chip);
  if (!host.ok()) return host.status();
  return ResolveMetrics(chip, metrics::ExpandMetrics(request), (*host)->BaseMetrics());
}

}  // namespace cuscope::collect
