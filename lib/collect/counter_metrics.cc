#include "lib/collect/counter_metrics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/collect/range_profiler.h"
#include "lib/model/metrics.h"

namespace cuscope::collect {

bool CounterMetrics::SetUp(uint32_t device_id, const CollectOptions& options, Planner& planner,
                           CounterNotes& notes, CounterOutbox& outbox) {
  CUptiResult r = ChipName(device_id, &chip_);
  if (r != CUPTI_SUCCESS) {
    notes.Note(&model::RunNotes::counters_status, ExplainCupti("cuptiDeviceGetChipName", r));
    return false;
  }
  auto host = MetricHost::Create(chip_);
  if (!host.ok()) {
    notes.Note(&model::RunNotes::counters_status, std::string(host.status().message()));
    return false;
  }
  host_ = std::move(*host);
  std::optional<Resolution> resolved = ResolveForChip(options.counters, notes);
  if (!resolved) return false;
  std::vector<std::string> collected = resolved->CollectedNames();
  auto image = host_->BuildConfig(collected);
  if (!image.ok()) {
    notes.Note(&model::RunNotes::counters_status, std::string(image.status().message()));
    return false;
  }
  names_ = collected;
  {
    std::vector<std::string> out;
    for (const ResolvedMetric& m : resolved->metrics) out.push_back(m.name);
    outbox.SetMetricNames(std::move(out));
  }
  const bool substituted = std::any_of(resolved->metrics.begin(), resolved->metrics.end(),
                                       [](const ResolvedMetric& m) { return m.substituted(); });
  if (substituted) resolution_ = std::move(*resolved);
  config_ = std::move(*image);
  planner.set_passes(config_.passes);  // decides a pending mode
  notes.Set(&model::RunNotes::counters_chip, chip_);
  notes.Set(&model::RunNotes::counters_passes, static_cast<int64_t>(config_.passes));
  notes.Set(&model::RunNotes::counters_strategy, planner.StrategyName());
  if (options.verbose) {
    notes.Note(&model::RunNotes::counters_config,
               absl::StrFormat("%d metrics on %s in %d passes, %s", names_.size(), chip_,
                               config_.passes, planner.StrategyName()));
  }
  return true;
}

std::optional<Resolution> CounterMetrics::ResolveForChip(const CounterOptions& options,
                                                         CounterNotes& notes) {
  const std::vector<std::string>& requested = options.metrics;
  // Every measurement holds the range's duration, a raw list too: rates need it, and a
  // kernel replay launch (which CUPTI leaves without times) is placed with it.
  std::vector<std::string> collected = metrics::ExpandMetrics(requested);
  if (std::find(collected.begin(), collected.end(), metrics::kDuration) == collected.end()) {
    collected.insert(collected.begin(), metrics::kDuration);
  }
  Resolution resolved = ResolveMetrics(chip_, collected, host_->BaseMetrics());
  for (const DroppedMetric& d : resolved.dropped) {
    if (std::find(requested.begin(), requested.end(), d.name) == requested.end()) continue;
    absl::Status st = host_->Validate(d.name);
    if (st.ok())
      st = absl::InvalidArgumentError(absl::StrCat(d.name, " is not available on ", chip_));
    notes.Note(&model::RunNotes::counters_status, std::string(st.message()));
    return std::nullopt;
  }
  if (resolved.metrics.empty()) {
    notes.Note(&model::RunNotes::counters_status,
               absl::StrCat("none of the requested metrics exists on ", chip_));
    return std::nullopt;
  }
  if (!resolved.dropped.empty())
    notes.Note(&model::RunNotes::counters_dropped, resolved.DroppedLine());
  return resolved;
}

}  // namespace cuscope::collect
