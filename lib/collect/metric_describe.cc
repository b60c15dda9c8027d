#include "lib/collect/metric_describe.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace cuscope::collect {
namespace {

// The submetrics of Nsight Compute's metric structure ("Metrics Structure" in its
// Profiling Guide), each as what it makes of the base metric.
constexpr std::pair<absl::string_view, absl::string_view> kSubmetrics[] = {
    {"peak_sustained", "peak sustained rate per cycle of"},
    {"peak_sustained_active", "peak sustained rate over the active cycles of"},
    {"peak_sustained_active.per_second", "peak sustained rate per second, when active, of"},
    {"peak_sustained_elapsed", "peak sustained rate over the elapsed cycles of"},
    {"peak_sustained_elapsed.per_second", "peak sustained rate per second of"},
    {"peak_sustained_region", "peak sustained rate over the region's cycles of"},
    {"peak_sustained_region.per_second", "peak sustained rate per second, in the region, of"},
    {"peak_sustained_frame", "peak sustained rate over the frame's cycles of"},
    {"peak_sustained_frame.per_second", "peak sustained rate per second, in the frame, of"},
    {"per_second", "per second (rate) of"},
    {"per_cycle_active", "per active cycle (rate) of"},
    {"per_cycle_elapsed", "per elapsed cycle (rate) of"},
    {"per_cycle_in_region", "per cycle in the region (rate) of"},
    {"per_cycle_in_frame", "per cycle in the frame (rate) of"},
    {"pct_of_peak_sustained_active", "% of peak sustained rate over the active cycles of"},
    {"pct_of_peak_sustained_elapsed", "% of peak sustained rate over the elapsed cycles of"},
    {"pct_of_peak_sustained_region", "% of peak sustained rate over the region's cycles of"},
    {"pct_of_peak_sustained_frame", "% of peak sustained rate over the frame's cycles of"},
    {"pct", "as a percentage"},
    {"ratio", "as a ratio"},
    {"max_rate", "maximum possible value of"},
};

// How a rollup combines the units (SMs, L2 slices, ...); "" for a sum, the total that
// the base description counts.
absl::string_view Rollup(absl::string_view rollup) {
  if (rollup == "avg") return "average over units";
  if (rollup == "min") return "minimum over units";
  if (rollup == "max") return "maximum over units";
  return "";
}

}  // namespace

std::string DescribeMetric(const std::string& metric, const std::string& base_description) {
  if (base_description.empty()) return "";
  const absl::string_view name(metric);
  const size_t dot = name.find('.');
  if (dot == absl::string_view::npos) return base_description;
  absl::string_view rest = name.substr(dot + 1);
  absl::string_view rollup;
  const absl::string_view first = rest.substr(0, rest.find('.'));
  if (first == "sum" || first == "avg" || first == "min" || first == "max") {
    rollup = Rollup(first);
    rest = first.size() < rest.size() ? rest.substr(first.size() + 1) : absl::string_view();
  }
  const std::string units = rollup.empty() ? "" : absl::StrCat(" (", rollup, ")");
  if (rest.empty()) return absl::StrCat(base_description, units);
  std::string phrase = absl::StrCat("(submetric ", rest, ") of");
  for (const auto& [submetric, words] : kSubmetrics) {
    if (rest == submetric) phrase = std::string(words.data(), words.size());
  }
  return absl::StrCat(phrase, ": ", base_description, units);
}

}  // namespace cuscope::collect
