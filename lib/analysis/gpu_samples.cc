#include "lib/analysis/gpu_samples.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "lib/analysis/summary.h"
#include "lib/model/checked.h"
#include "lib/model/metrics.h"

namespace cuscope::analysis {
namespace {

namespace m = ::cuscope::metrics;

// Sums of each metric over some samples: a count's values, or a rate's values times
// the sample's time; each with the time of the samples where it was finite.
struct Accumulator {
  uint64_t samples = 0, ns = 0;
  std::vector<double> sums;
  std::vector<uint64_t> metric_ns;

  explicit Accumulator(size_t n = 0) : sums(n, 0), metric_ns(n, 0) {}
  void Add(const model::GpuSample& s, const std::vector<bool>& rate) {
    const uint64_t d = s.duration_ns();
    if (d == 0 || s.values.size() != sums.size()) return;
    ++samples;
    model::AddTo(ns, d);
    for (size_t i = 0; i < sums.size(); ++i) {
      const double v = s.values[i];
      if (!std::isfinite(v)) continue;
      sums[i] += rate[i] ? v * double(d) : v;
      model::AddTo(metric_ns[i], d);
    }
  }
};

// One device's configuration, as the accumulators need it.
struct DeviceView {
  const model::GpuSampleConfig* config = nullptr;
  std::vector<std::string> names;
  std::vector<bool> rate;
  int sm_count = 0;
};

std::optional<double> Ratio(std::optional<double> a, std::optional<double> b, double scale = 1) {
  if (!a || !b || *b <= 0) return std::nullopt;
  return *a / *b * scale;
}

SampledRates RatesOf(const Accumulator& a, const DeviceView& d) {
  SampledRates r;
  r.samples = a.samples;
  r.sampled_ns = a.ns;
  // Each metric: a count per second or a time-averaged rate; the counts' totals.
  std::map<std::string, double> total, value;
  for (size_t i = 0; i < d.names.size() && i < a.sums.size(); ++i) {
    if (a.metric_ns[i] == 0) continue;
    const double seconds = double(a.metric_ns[i]) * 1e-9;
    const double v = d.rate[i] ? a.sums[i] / double(a.metric_ns[i]) : a.sums[i] / seconds;
    r.values.emplace_back(d.names[i], v);
    value[d.names[i]] = v;
    if (!d.rate[i]) total[d.names[i]] = v;  // per second: ratios of counts stay exact
  }
  auto get = [](const std::map<std::string, double>& from,
                const char* name) -> std::optional<double> {
    auto it = from.find(name);
    if (it == from.end()) return std::nullopt;
    return it->second;
  };
  const std::optional<double> elapsed = get(total, m::kSampledSmCyclesElapsed);
  r.sm_clock_hz = elapsed;
  r.sm_active_pct = Ratio(get(total, m::kSampledSmCyclesActive), elapsed, 100);
  if (d.sm_count > 0 && elapsed) {
    r.issue_pct = Ratio(get(total, m::kSampledInstExecuted), *elapsed * d.sm_count * 4, 100);
  }
  r.tensor_pct = get(value, m::kSampledTensorPct);
  r.dram_pct = get(value, m::kSampledDramPct);
  const std::optional<double> read = get(total, m::kSampledDramRead);
  const std::optional<double> write = get(total, m::kSampledDramWrite);
  if (read || write) r.dram_bytes_per_s = read.value_or(0) + write.value_or(0);
  r.l2_bytes_per_s = get(total, m::kSampledL2Bytes);
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
    if (active == 0 && e.delta > 0) any->push_back({e.t, e.t, 0});
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

}  // namespace

GpuSampleAnalysis AnalyzeGpuSamples(const model::Profile& p) {
  GpuSampleAnalysis out;
  std::map<uint32_t, DeviceView> views;
  for (const model::GpuSampleConfig& c : p.sample_configs) {
    DeviceView& v = views[c.device_id];
    if (v.config != nullptr) continue;  // the first configuration of a device counts
    v.config = &c;
    for (model::StringId id : c.metrics) {
      v.names.push_back(p.str(id));
      v.rate.push_back(m::IsSampledRate(v.names.back()));
    }
    const model::DeviceInfo* d = p.FindDevice(c.device_id);
    v.sm_count = d != nullptr ? d->sm_count : 0;
  }
  if (views.empty()) return out;

  KernelNameIndex names(p);
  struct KernelTotals {
    uint64_t launches = 0, ns = 0;
  };
  std::map<uint32_t, std::vector<std::tuple<uint64_t, uint64_t, uint32_t>>> launches;
  std::map<std::pair<uint32_t, uint32_t>, KernelTotals> totals;  // (device, name index)
  for (const model::KernelRecord& k : p.kernels) {
    if (views.count(k.device_id) == 0 || !HasValidTimes(k)) continue;
    const uint32_t id = names.Id(k);
    KernelTotals& t = totals[{k.device_id, id}];
    ++t.launches;
    model::AddTo(t.ns, k.duration_ns());
    if (k.end_ns > k.start_ns) launches[k.device_id].emplace_back(k.start_ns, k.end_ns, id);
  }

  std::map<std::pair<uint32_t, uint32_t>, Accumulator> per_kernel;
  for (auto& [device, view] : views) {
    std::vector<Segment> single, any;
    Segments(launches[device], &single, &any);
    const size_t n = view.names.size();
    Accumulator all(n), in_kernels(n);
    uint64_t attributed = 0;
    for (const model::GpuSample& s : p.samples) {
      if (s.device_id != device || s.values.size() != n || s.duration_ns() == 0) continue;
      all.Add(s, view.rate);
      if (Holding(any, s.start_ns, s.end_ns) != nullptr) in_kernels.Add(s, view.rate);
      const Segment* one = Holding(single, s.start_ns, s.end_ns);
      if (one == nullptr) continue;
      auto [it, fresh] = per_kernel.try_emplace({device, one->kernel}, n);
      it->second.Add(s, view.rate);
      ++attributed;
    }
    SampledDevice d;
    d.device_id = device;
    d.interval_ns = view.config->interval_ns;
    d.metrics = view.names;
    d.all = RatesOf(all, view);
    d.in_kernels = RatesOf(in_kernels, view);
    d.attributed = attributed;
    out.devices.push_back(std::move(d));
  }
  for (const auto& [key, t] : totals) {
    SampledKernel k;
    k.device_id = key.first;
    k.name = names.Name(key.second);
    k.launches = t.launches;
    k.kernel_ns = t.ns;
    auto it = per_kernel.find(key);
    if (it != per_kernel.end()) k.rates = RatesOf(it->second, views[key.first]);
    out.kernels.push_back(std::move(k));
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const SampledKernel& a, const SampledKernel& b) {
                     if (a.kernel_ns != b.kernel_ns) return a.kernel_ns > b.kernel_ns;
                     return a.name < b.name;
                   });
  return out;
}

}  // namespace cuscope::analysis
