#include "lib/analysis/gpu_samples.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

#include "lib/analysis/occupancy.h"
#include "lib/analysis/sampled_verdict.h"
#include "lib/analysis/summary.h"
#include "lib/model/checked.h"
#include "lib/model/metrics.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;

// One device's configuration, as the sums need it.
struct DeviceView {
  const model::GpuSampleConfig* config = nullptr;
  SampleLayout layout;
};

std::optional<double> Ratio(std::optional<double> a, std::optional<double> b, double scale = 1) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return *a / *b * scale;
}

// The derived rates from `value(i)`: metric i's count per second or its rate, unset
// when it has none.
template <typename Value>
DerivedRates Derive(const SampleLayout& l, const Value& value) {
  DerivedRates r;
  auto get = [&](int i) -> std::optional<double> {
    if (i < 0) return std::nullopt;
    return value(static_cast<size_t>(i));
  };
  const std::optional<double> elapsed = get(l.sm_elapsed);
  r.sm_clock_hz = elapsed;
  r.sm_active_pct = Ratio(get(l.sm_active), elapsed, 100);
  if (l.sm_count > 0 && elapsed) {
    r.issue_pct = Ratio(get(l.inst), *elapsed * l.sm_count * 4, 100);
  }
  r.tensor_pct = get(l.tensor);
  r.dram_pct = get(l.dram_pct);
  const std::optional<double> read = get(l.dram_read);
  const std::optional<double> write = get(l.dram_write);
  if (read || write) r.dram_bytes_per_s = read.value_or(0) + write.value_or(0);
  r.l2_bytes_per_s = get(l.l2);
  return r;
}

// A stretch of time on a device while exactly one kernel runs (`kernel` its name
// index), or while any kernel runs (`kernel` unused).
struct Segment {
  uint64_t start, end;
  uint32_t kernel;
};

// The stretches with exactly one kernel running, and the union of kernel time.
void Segments(const std::vector<std::tuple<uint64_t, uint64_t, uint32_t>>& launches,
              std::vector<Segment>* single, std::vector<Segment>* any) {
  struct Event {
    uint64_t t;
    int delta;
    uint32_t kernel;
  };
  std::vector<Event> events;
  events.reserve(launches.size() * 2);
  for (const auto& [start, end, kernel] : launches) {
    events.push_back({start, +1, kernel});
    events.push_back({end, -1, kernel});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.t != b.t ? a.t < b.t : a.delta < b.delta;  // ends first
  });
  int active = 0;            // launches running
  uint32_t running_ids = 0;  // XOR of their name indexes: the one's, when one runs
  uint64_t previous = 0;
  for (const Event& e : events) {
    if (active == 1 && e.t > previous) single->push_back({previous, e.t, running_ids});
    // A kernel that starts as the last one ends continues the stretch of kernel time.
    if (active == 0 && e.delta > 0 && (any->empty() || any->back().end != e.t)) {
      any->push_back({e.t, e.t, 0});
    }
    active += e.delta;
    running_ids ^= e.kernel;
    if (active == 0 && !any->empty()) any->back().end = e.t;
    previous = e.t;
  }
}

// The segment that holds [start, end) wholly, or nullptr. `segments` sorted, disjoint.
const Segment* Holding(const std::vector<Segment>& segments, uint64_t start, uint64_t end) {
  auto it = std::upper_bound(segments.begin(), segments.end(), start,
                             [](uint64_t t, const Segment& s) { return t < s.start; });
  if (it == segments.begin()) return nullptr;
  --it;
  return start >= it->start && end <= it->end ? &*it : nullptr;
}

// One grid, one block and one launch configuration.
bool SameShape(const model::KernelRecord& a, const model::KernelRecord& b) {
  return a.grid == b.grid && a.block == b.block &&
         a.registers_per_thread == b.registers_per_thread &&
         a.static_shared_bytes == b.static_shared_bytes &&
         a.dynamic_shared_bytes == b.dynamic_shared_bytes;
}

// The blocks of one wave of `k`'s launch (occupancy.h), 0 without the device's SM count.
uint64_t WaveBlocksOf(const model::KernelRecord& k, const model::DeviceInfo* device) {
  if (device == nullptr || device->sm_count <= 0) return 0;
  return WaveBlocks(device->sm_count, LaunchOccupancy(*device, k));
}

// A kernel name's launches on a device.
struct KernelTotals {
  uint64_t launches = 0, ns = 0;
  // The first launch's shape, and whether every launch had it.
  const model::KernelRecord* shape = nullptr;
  bool one_shape = true;
};

// The sampled verdict of a kernel with totals `t` and sampled rates `r`.
std::optional<Verdict> VerdictOf(const model::Profile& p, uint32_t device, const KernelTotals& t,
                                 const SampledRates& r, const Ceilings& ceilings) {
  SampledParts parts{r.samples, r.issue_pct, r.tensor_pct, r.dram_pct, r.l2_bytes_per_s};
  if (t.shape != nullptr && t.one_shape) {
    parts.grid_blocks = t.shape->grid.volume();
    parts.wave_blocks = WaveBlocksOf(*t.shape, p.FindDevice(device));
  }
  return SampledVerdict(parts, &ceilings);
}

}  // namespace

GpuSampleAnalysis AnalyzeGpuSamples(const model::Profile& p) {
  GpuSampleAnalysis out;
  std::map<uint32_t, DeviceView> views;
  for (const model::GpuSampleConfig& c : p.sample_configs) {
    DeviceView& v = views[c.device_id];
    if (v.config != nullptr) continue;  // the first configuration of a device counts
    v.config = &c;
    v.layout = SampleLayoutOf(p, c);
  }
  if (views.empty()) return out;

  KernelNameIndex names(p);
  std::map<uint32_t, std::vector<std::tuple<uint64_t, uint64_t, uint32_t>>> launches;
  std::map<std::pair<uint32_t, uint32_t>, KernelTotals> totals;  // (device, name index)
  for (const model::KernelRecord& k : p.kernels) {
    if (views.count(k.device_id) == 0 || !HasValidTimes(k)) continue;
    const uint32_t id = names.Id(k);
    KernelTotals& t = totals[{k.device_id, id}];
    ++t.launches;
    model::AddTo(t.ns, k.duration_ns());
    if (t.shape == nullptr) {
      t.shape = &k;
    } else if (!SameShape(*t.shape, k)) {
      t.one_shape = false;
    }
    if (k.end_ns > k.start_ns) launches[k.device_id].emplace_back(k.start_ns, k.end_ns, id);
  }

  std::map<std::pair<uint32_t, uint32_t>, SampleSum> per_kernel;
  for (auto& [device, view] : views) {
    std::vector<Segment> single, any;
    Segments(launches[device], &single, &any);
    const size_t n = view.layout.names.size();
    SampleSum all(view.layout), in_kernels(view.layout);
    uint64_t attributed = 0;
    for (const model::GpuSample& s : p.samples) {
      if (s.device_id != device || s.values.size() != n || s.duration_ns() == 0) continue;
      all.Add(s);
      if (Holding(any, s.start_ns, s.end_ns) != nullptr) in_kernels.Add(s);
      const Segment* one = Holding(single, s.start_ns, s.end_ns);
      if (one == nullptr) continue;
      per_kernel.try_emplace({device, one->kernel}, view.layout).first->second.Add(s);
      ++attributed;
    }
    SampledDevice d;
    d.device_id = device;
    d.interval_ns = view.config->interval_ns;
    d.metrics = view.layout.names;
    d.all = all.Rates();
    d.in_kernels = in_kernels.Rates();
    d.attributed = attributed;
    out.devices.push_back(std::move(d));
  }
  std::map<uint32_t, Ceilings> ceilings;  // by device, for the L2 peak
  for (const auto& [device, view] : views) ceilings[device] = ComputeCeilings(p, device);
  for (const auto& [key, t] : totals) {
    SampledKernel k;
    k.device_id = key.first;
    k.name = names.Name(key.second);
    k.launches = t.launches;
    k.kernel_ns = t.ns;
    auto it = per_kernel.find(key);
    if (it != per_kernel.end()) k.rates = it->second.Rates();
    k.verdict = VerdictOf(p, key.first, t, k.rates, ceilings[key.first]);
    out.kernels.push_back(std::move(k));
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const SampledKernel& a, const SampledKernel& b) {
                     if (a.kernel_ns != b.kernel_ns) return a.kernel_ns > b.kernel_ns;
                     return a.name < b.name;
                   });
  return out;
}

SampleLayout SampleLayoutOf(const model::Profile& p, const model::GpuSampleConfig& config) {
  SampleLayout l;
  for (model::StringId id : config.metrics) {
    const std::string& name = p.str(id);
    const int i = static_cast<int>(l.names.size());
    const bool rate = m::IsSampledRate(name);
    l.names.push_back(name);
    l.rate.push_back(rate);
    // Rates as they are; the counts' figures need counts (per second, ratios stay exact).
    if (name == m::kSampledTensorPct) l.tensor = i;
    if (name == m::kSampledDramPct) l.dram_pct = i;
    if (rate) continue;
    if (name == m::kSampledSmCyclesElapsed) l.sm_elapsed = i;
    if (name == m::kSampledSmCyclesActive) l.sm_active = i;
    if (name == m::kSampledInstExecuted) l.inst = i;
    if (name == m::kSampledDramRead) l.dram_read = i;
    if (name == m::kSampledDramWrite) l.dram_write = i;
    if (name == m::kSampledL2Bytes) l.l2 = i;
  }
  const model::DeviceInfo* d = p.FindDevice(config.device_id);
  l.sm_count = d != nullptr ? d->sm_count : 0;
  return l;
}

void SampleSum::Add(const model::GpuSample& s) {
  const uint64_t d = s.duration_ns();
  if (d == 0 || s.values.size() != sums_.size()) return;
  ++samples_;
  model::AddTo(ns_, d);
  for (size_t i = 0; i < sums_.size(); ++i) {
    const double v = s.values[i];
    if (!std::isfinite(v)) continue;
    sums_[i] += layout_->rate[i] ? v * double(d) : v;
    model::AddTo(metric_ns_[i], d);
  }
}

SampledRates SampleSum::Rates() const {
  const SampleLayout& l = *layout_;
  SampledRates r;
  // Each metric: a count per second or a time-averaged rate.
  std::vector<std::optional<double>> value(l.names.size());
  for (size_t i = 0; i < l.names.size(); ++i) {
    if (metric_ns_[i] == 0) continue;
    const double seconds = double(metric_ns_[i]) * 1e-9;
    value[i] = l.rate[i] ? sums_[i] / double(metric_ns_[i]) : sums_[i] / seconds;
    r.values.emplace_back(l.names[i], *value[i]);
  }
  static_cast<DerivedRates&>(r) = Derive(l, [&](size_t i) { return value[i]; });
  r.samples = samples_;
  r.sampled_ns = ns_;
  return r;
}

void SampleSum::Clear() {
  samples_ = ns_ = 0;
  std::fill(sums_.begin(), sums_.end(), 0.0);
  std::fill(metric_ns_.begin(), metric_ns_.end(), 0);
}

DerivedRates SampleRates(const model::GpuSample& s, const SampleLayout& layout) {
  const uint64_t d = s.duration_ns();
  if (d == 0 || s.values.size() != layout.names.size()) return {};
  const double seconds = double(d) * 1e-9;
  return Derive(layout, [&](size_t i) -> std::optional<double> {
    const double v = s.values[i];
    if (!std::isfinite(v)) return std::nullopt;
    return layout.rate[i] ? v : v / seconds;
  });
}

std::vector<std::string> GpuSampleNotes(const model::Profile& p) {
  std::vector<std::string> notes;
  for (const auto& [name, value] : model::NotesOfGroup(p.run.notes, "gpu_metrics")) {
    notes.push_back(name + ": " + value);
  }
  return notes;
}

}  // namespace cuscope::analysis
