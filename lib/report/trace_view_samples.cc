// The GPU metric samples of a trace (model::GpuSample): per sample, a counter event
// on its GPU's process for each rate its device's metrics make (the per-sample rates
// of lib/analysis/gpu_samples.h), as nsys shows them in rows under each GPU.
#include <algorithm>
#include <cmath>
#include <optional>

#include "lib/analysis/gpu_samples.h"
#include "lib/report/trace_view.h"

namespace cuscope::report {
namespace {

// One counter series: its name in the trace, the rate it shows and its scale.
struct Series {
  const char* name;
  std::optional<double> analysis::DerivedRates::*rate;
  double scale;
};

constexpr Series kSeries[] = {
    {"SM active %", &analysis::DerivedRates::sm_active_pct, 1},
    {"SM issue %", &analysis::DerivedRates::issue_pct, 1},
    {"Tensor pipe %", &analysis::DerivedRates::tensor_pct, 1},
    {"DRAM %", &analysis::DerivedRates::dram_pct, 1},
    {"DRAM GB/s", &analysis::DerivedRates::dram_bytes_per_s, 1e-9},
    {"L2 GB/s", &analysis::DerivedRates::l2_bytes_per_s, 1e-9},
    {"SM clock MHz", &analysis::DerivedRates::sm_clock_hz, 1e-6},
};

}  // namespace

// The sampled devices' configurations (the first of each device, as the analysis
// takes them); a device with samples kept gets its GPU process even without other work.
void TraceView::CollectSamples() {
  if (p_.samples.empty()) return;
  for (const model::GpuSampleConfig& c : p_.sample_configs) {
    if (sample_layouts_.count(c.device_id) == 0) {
      sample_layouts_.emplace(c.device_id, analysis::SampleLayoutOf(p_, c));
    }
  }
  for (const auto& [device, layout] : sample_layouts_) {
    if (std::binary_search(devices_.begin(), devices_.end(), device)) continue;
    const bool kept = std::any_of(p_.samples.begin(), p_.samples.end(), [&](const auto& s) {
      return s.device_id == device && (filter_ == nullptr || filter_->KeepSample(s));
    });
    if (kept) devices_.insert(std::upper_bound(devices_.begin(), devices_.end(), device), device);
  }
}

// Each sample's rates, one counter event per series it makes, at the sample's start.
// Samples of a device without a configuration, with no time or the wrong number of
// values make none; a series whose metrics are not finite in a sample skips it.
void TraceView::SampleEvents(TraceSink& sink, TraceEvent& e) const {
  if (sample_layouts_.empty()) return;
  uint32_t last_device = 0;
  const analysis::SampleLayout* layout = nullptr;
  for (const model::GpuSample& s : p_.samples) {
    if (layout == nullptr || s.device_id != last_device) {
      auto it = sample_layouts_.find(s.device_id);
      if (it == sample_layouts_.end()) continue;
      layout = &it->second;
      last_device = s.device_id;
    }
    if (filter_ != nullptr && !filter_->KeepSample(s)) continue;
    const analysis::DerivedRates rates = analysis::SampleRates(s, *layout);
    for (const Series& series : kSeries) {
      const std::optional<double>& v = rates.*series.rate;
      if (!v || !std::isfinite(*v)) continue;
      e.phase = TracePhase::kCounter;
      e.category = "gpu_metrics";
      e.name = series.name;
      e.pid = s.device_id;
      e.tid = 0;
      e.start_ns = e.end_ns = s.start_ns;
      e.args.clear();
      TraceArg& a = e.args.emplace_back();
      a.key = "value";
      a.kind = TraceArg::Kind::kDouble;
      // Rounded to the JSON writer's 6 decimals (which cuts, not rounds: 1979.999999).
      a.d = std::round(*v * series.scale * 1e6) / 1e6;
      sink.Event(e);
    }
  }
}

}  // namespace cuscope::report
