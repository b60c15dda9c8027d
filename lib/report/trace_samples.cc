#include "lib/report/trace_samples.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

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

// One counter event per series `rates` make, on `device`'s process at `start_ns`; a
// series whose metrics were not finite is skipped.
void Counters(TraceSink& sink, TraceEvent& e, uint32_t device, uint64_t start_ns,
              const analysis::DerivedRates& rates) {
  for (const Series& series : kSeries) {
    const std::optional<double>& v = rates.*series.rate;
    if (!v || !std::isfinite(*v)) continue;
    e.phase = TracePhase::kCounter;
    e.category = "gpu_metrics";
    e.name = series.name;
    e.pid = device;
    e.tid = 0;
    e.start_ns = e.end_ns = start_ns;
    e.args.clear();
    TraceArg& a = e.args.emplace_back();
    a.key = "value";
    a.kind = TraceArg::Kind::kDouble;
    // Rounded to the JSON writer's 6 decimals (which cuts, not rounds: 1979.999999).
    a.d = std::round(*v * series.scale * 1e6) / 1e6;
    sink.Event(e);
  }
}

// Samples of one device combined as the analysis combines a kernel's
// (analysis::SampleSum), written as one sample at the first one's start.
class Bin {
 public:
  Bin(uint32_t device, const analysis::SampleLayout& layout) : device_(device), sum_(layout) {}
  // Whether `s` starts `width` or more after the bin's start: it opens the next one.
  bool Full(const model::GpuSample& s, uint64_t width) const {
    return sum_.ns() != 0 && s.start_ns >= start_ns_ && s.start_ns - start_ns_ >= width;
  }
  void Add(const model::GpuSample& s) {
    if (sum_.ns() == 0) start_ns_ = s.start_ns;
    sum_.Add(s);
  }
  // Writes the bin's counters and empties it.
  void Flush(TraceSink& sink, TraceEvent& e) {
    if (sum_.ns() == 0) return;
    Counters(sink, e, device_, start_ns_, sum_.Rates());
    sum_.Clear();
  }

 private:
  uint32_t device_;
  uint64_t start_ns_ = 0;
  analysis::SampleSum sum_;
};

}  // namespace

TraceSamples::TraceSamples(const model::Profile& profile, const TraceFilter* filter)
    : p_(profile), filter_(filter) {
  if (p_.samples.empty()) return;
  for (const model::GpuSampleConfig& c : p_.sample_configs) {
    if (layouts_.count(c.device_id) == 0) {
      layouts_.emplace(c.device_id, analysis::SampleLayoutOf(p_, c));
    }
  }
}

void TraceSamples::AddDevices(std::vector<uint32_t>& devices) const {
  for (const auto& entry : layouts_) {
    const uint32_t device = entry.first;  // a copy: lambdas cannot capture a binding (C++17)
    if (std::binary_search(devices.begin(), devices.end(), device)) continue;
    const bool kept = std::any_of(p_.samples.begin(), p_.samples.end(), [&](const auto& s) {
      return s.device_id == device && (filter_ == nullptr || filter_->KeepSample(s));
    });
    if (kept) devices.insert(std::upper_bound(devices.begin(), devices.end(), device), device);
  }
}

void TraceSamples::Events(TraceSink& sink, TraceEvent& e) const {
  if (layouts_.empty()) return;
  const uint64_t width = filter_ != nullptr ? filter_->SampleBin() : 0;
  std::map<uint32_t, Bin> bins;  // per device, while binning
  uint32_t last_device = 0;
  const analysis::SampleLayout* layout = nullptr;
  Bin* bin = nullptr;
  for (const model::GpuSample& s : p_.samples) {
    if (layout == nullptr || s.device_id != last_device) {
      auto it = layouts_.find(s.device_id);
      if (it == layouts_.end()) continue;
      layout = &it->second;
      last_device = s.device_id;
      if (width > 0) bin = &bins.try_emplace(s.device_id, s.device_id, *layout).first->second;
    }
    if (filter_ != nullptr && !filter_->KeepSample(s)) continue;
    if (width == 0) {
      Counters(sink, e, s.device_id, s.start_ns, analysis::SampleRates(s, *layout));
      continue;
    }
    if (bin->Full(s, width)) bin->Flush(sink, e);
    bin->Add(s);
  }
  for (auto& [device, b] : bins) b.Flush(sink, e);
}

}  // namespace cuscope::report
