// The GPU metric samples of a trace (model::GpuSample): per sample, or per bin of
// samples (TraceOptions::sample_bin_ns), a counter event on its GPU's process for each
// rate its device's metrics make (the per-sample rates of lib/analysis/gpu_samples.h),
// as nsys shows them in rows under each GPU.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include "lib/analysis/gpu_samples.h"
#include "lib/model/checked.h"
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

// One counter event per series the sample makes, at its start; a series whose
// metrics are not finite in it is skipped.
void Counters(TraceSink& sink, TraceEvent& e, const model::GpuSample& s,
              const analysis::SampleLayout& layout) {
  const analysis::DerivedRates rates = analysis::SampleRates(s, layout);
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

// Samples of one device combined as the analysis combines a kernel's: each count
// summed over the time where it was finite, each rate averaged over that time.
// Written as one sample from the first one's start, as long as their time together.
class Bin {
 public:
  Bin(uint32_t device, const analysis::SampleLayout& layout)
      : layout_(layout), sums_(layout.names.size()), metric_ns_(layout.names.size()) {
    combined_.device_id = device;
  }
  bool empty() const { return ns_ == 0; }
  // Whether `s` starts `width` or more after the bin's start: it opens the next one.
  bool Full(const model::GpuSample& s, uint64_t width) const {
    return !empty() && s.start_ns >= combined_.start_ns && s.start_ns - combined_.start_ns >= width;
  }
  void Add(const model::GpuSample& s) {
    const uint64_t d = s.duration_ns();
    if (d == 0 || s.values.size() != sums_.size()) return;
    if (empty()) combined_.start_ns = s.start_ns;
    model::AddTo(ns_, d);
    for (size_t i = 0; i < sums_.size(); ++i) {
      if (!std::isfinite(s.values[i])) continue;
      sums_[i] += layout_.rate[i] ? s.values[i] * double(d) : s.values[i];
      model::AddTo(metric_ns_[i], d);
    }
  }
  // Writes the bin's counters and empties it.
  void Flush(TraceSink& sink, TraceEvent& e) {
    if (empty()) return;
    combined_.end_ns = combined_.start_ns + ns_;
    combined_.values.assign(sums_.size(), std::numeric_limits<double>::quiet_NaN());
    for (size_t i = 0; i < sums_.size(); ++i) {
      if (metric_ns_[i] == 0) continue;  // never finite: the series it feeds are skipped
      const double ns = double(metric_ns_[i]);
      combined_.values[i] = layout_.rate[i] ? sums_[i] / ns : sums_[i] * double(ns_) / ns;
    }
    Counters(sink, e, combined_, layout_);
    ns_ = 0;
    std::fill(sums_.begin(), sums_.end(), 0.0);
    std::fill(metric_ns_.begin(), metric_ns_.end(), 0);
  }

 private:
  const analysis::SampleLayout& layout_;
  model::GpuSample combined_;
  uint64_t ns_ = 0;
  std::vector<double> sums_;
  std::vector<uint64_t> metric_ns_;
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
  for (const auto& entry : sample_layouts_) {
    const uint32_t device = entry.first;  // a copy: lambdas cannot capture a binding (C++17)
    if (std::binary_search(devices_.begin(), devices_.end(), device)) continue;
    const bool kept = std::any_of(p_.samples.begin(), p_.samples.end(), [&](const auto& s) {
      return s.device_id == device && (filter_ == nullptr || filter_->KeepSample(s));
    });
    if (kept) devices_.insert(std::upper_bound(devices_.begin(), devices_.end(), device), device);
  }
}

// Each kept sample's counters, or each bin's. Samples of a device without a
// configuration, with no time or the wrong number of values make none.
void TraceView::SampleEvents(TraceSink& sink, TraceEvent& e) const {
  if (sample_layouts_.empty()) return;
  const uint64_t width = filter_ != nullptr ? filter_->SampleBin() : 0;
  std::map<uint32_t, Bin> bins;  // per device, while binning
  uint32_t last_device = 0;
  const analysis::SampleLayout* layout = nullptr;
  Bin* bin = nullptr;
  for (const model::GpuSample& s : p_.samples) {
    if (layout == nullptr || s.device_id != last_device) {
      auto it = sample_layouts_.find(s.device_id);
      if (it == sample_layouts_.end()) continue;
      layout = &it->second;
      last_device = s.device_id;
      if (width > 0) bin = &bins.try_emplace(s.device_id, s.device_id, *layout).first->second;
    }
    if (filter_ != nullptr && !filter_->KeepSample(s)) continue;
    if (width == 0) {
      Counters(sink, e, s, *layout);
      continue;
    }
    if (bin->Full(s, width)) bin->Flush(sink, e);
    bin->Add(s);
  }
  for (auto& [device, b] : bins) b.Flush(sink, e);
}

}  // namespace cuscope::report
