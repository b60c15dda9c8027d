#include "lib/collect/counter_outbox.h"

namespace cuscope::collect {
namespace {
// Records waiting for a drain at most (a drain comes with each activity buffer; if the
// buffers stop coming, the queue stops growing).
constexpr size_t kMaxPendingKernels = size_t{1} << 18;
}  // namespace

void CounterOutbox::SetMetricNames(std::vector<std::string> names) {
  absl::MutexLock lock(&mu_);
  metrics_ = std::move(names);
}

void CounterOutbox::AddSet(PendingSet set, bool first_on_device) {
  absl::MutexLock lock(&mu_);
  if (first_on_device) device_values_.emplace_back(set.device_id, set.values);
  sets_.push_back(std::move(set));
}

bool CounterOutbox::AddKernel(MadeKernel kernel) {
  absl::MutexLock lock(&mu_);
  if (kernels_.size() >= kMaxPendingKernels) return false;
  kernels_.push_back(std::move(kernel));
  return true;
}

void CounterOutbox::AddHeld(const std::vector<HeldSpan>& spans) {
  absl::MutexLock lock(&mu_);
  held_.insert(held_.end(), spans.begin(), spans.end());
}

void CounterOutbox::AddOwn(const model::OwnInterval& own) {
  absl::MutexLock lock(&mu_);
  own_.push_back(own);
}

void CounterOutbox::Drain(model::Profile* batch) {
  absl::MutexLock lock(&mu_);
  for (auto& p : sets_) {
    model::CounterSet set;
    set.device_id = p.device_id;
    set.name = batch->strings.Intern(p.sig.name);
    set.grid = p.sig.grid;
    set.block = p.sig.block;
    set.strategy = p.strategy;
    set.passes = p.passes;
    set.correlation_ids = std::move(p.correlation_ids);
    for (size_t i = 0; i < p.values.size() && i < metrics_.size(); ++i) {
      set.values.emplace_back(batch->strings.Intern(metrics_[i]), p.values[i]);
    }
    batch->counters.push_back(std::move(set));
  }
  sets_.clear();
  DrainKernels(batch);
  for (const HeldSpan& held : held_) {
    model::OverheadRecord o;
    o.start_ns = held.start_ns;
    o.end_ns = held.end_ns;
    o.kind = batch->strings.Intern(HeldPhaseKind(held.phase));
    batch->overheads.push_back(o);
  }
  held_.clear();
  batch->own_time.insert(batch->own_time.end(), own_.begin(), own_.end());
  own_.clear();
  DrainDeviceValues(batch);
}

void CounterOutbox::DrainKernels(model::Profile* batch) {
  for (const MadeKernel& p : kernels_) {
    model::KernelRecord k;
    k.device_id = p.device_id;
    k.context_id = p.context_id;
    k.stream_id = p.stream_id;
    k.correlation_id = p.correlation_id;
    k.name = batch->strings.Intern(p.name);
    k.mangled_name = batch->strings.Intern(p.mangled_name);
    k.grid = p.grid;
    k.block = p.block;
    k.dynamic_shared_bytes = p.dynamic_shared_bytes;
    k.flags = model::kKernelCountersMeasured | model::kKernelFromLaunch;
    batch->kernels.push_back(k);
  }
  kernels_.clear();
}

void CounterOutbox::DrainDeviceValues(model::Profile* batch) {
  for (auto& [device, values] : device_values_) {
    for (size_t i = 0; i < values.size() && i < metrics_.size(); ++i) {
      const std::string& m = metrics_[i];
      bool is_peak = m.size() > 15 && m.compare(m.size() - 15, 15, ".peak_sustained") == 0;
      bool is_clock = m.find(".per_second") != std::string::npos;
      if (!is_peak && !is_clock) continue;
      model::DeviceMetric dm;
      dm.device_id = device;
      dm.metric = batch->strings.Intern(m);
      dm.value = values[i];
      batch->device_metrics.push_back(dm);
    }
  }
  device_values_.clear();
}

}  // namespace cuscope::collect
