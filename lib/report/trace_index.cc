#include "lib/report/trace_index.h"

#include <algorithm>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/event_waits.h"
#include "lib/analysis/summary.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {
namespace {

using analysis::HasValidTimes;

// A count note that is set and not negative.
std::optional<int64_t> NonNegative(const model::NoteCount& note) {
  if (note && *note >= 0) return note;
  return std::nullopt;
}

}  // namespace

TraceIndex::TraceIndex(const model::Profile& profile,
                       const std::vector<analysis::KernelCounters>& counters,
                       const TraceFilter* filter)
    : p_(profile),
      counters_(counters),
      filter_(filter),
      run_pid_(static_cast<uint32_t>(profile.run.pid)),
      apis_(profile),
      torch_(analysis::AttributeTorch(profile, apis_)),
      event_waits_(analysis::LinkEventWaits(profile)),
      names_(profile),
      samples_(profile, filter) {
  if (torch_.any_line) {
    for (const model::SourceLocation& l : p_.source_locations) {
      if (l.kind != model::SourceLocationKind::kPython) continue;
      python_labels_[l.id] = absl::StrCat(p_.str(l.file), ":", l.line, " ", p_.str(l.function));
    }
  }
  ComputeHeader();
  CollectTracks();
  CollectShapes();
  if (names_.any_nccl()) header_.backend = "nccl";
  CollectAnnotationSpans();
  CollectCounters();
  samples_.AddDevices(devices_);
}

std::string_view TraceIndex::PythonLabel(model::LocationId id) const {
  auto it = python_labels_.find(id);
  return it == python_labels_.end() ? std::string_view() : std::string_view(it->second);
}

// Timestamps are written relative to an origin on CUPTI's clock so that they keep
// nanosecond precision as doubles; baseTimeNanoseconds is the origin's Unix time.
void TraceIndex::ComputeHeader() {
  const model::RunInfo& run = p_.run;
  if (run.start_unix_ns > 0 && run.start_ns > 0) {
    const uint64_t lo = p_.TimeSpan().first;
    header_.origin_ns = lo != 0 ? std::min<uint64_t>(lo, run.start_ns) : run.start_ns;
    header_.base_unix_ns =
        run.start_unix_ns - static_cast<int64_t>(run.start_ns - header_.origin_ns);
  }
  header_.rank = run.rank >= 0 ? run.rank : 0;
  header_.world_size = NonNegative(run.notes.world_size);
  header_.local_rank = NonNegative(run.notes.local_rank);
  if (!header_.world_size && run.rank < 0) header_.world_size = 1;
}

// The tracks (devices, streams, host threads) and the API calls that launched a GPU op
// (runtime preferred over driver: the one ApiByCorrelation finds).
void TraceIndex::CollectTracks() {
  api_launched_.assign(p_.api_calls.size(), 0);
  std::set<uint32_t> devices;
  absl::flat_hash_set<uint64_t> streams;
  for (const model::DeviceInfo& d : p_.devices) devices.insert(d.id);
  uint64_t last_stream = ~uint64_t{0};
  auto note_gpu = [&](const auto& r) {
    if (!HasValidTimes(r)) return;
    if (r.correlation_id != 0) {
      const uint32_t api = apis_.Find(r.correlation_id);
      if (api != analysis::ApiByCorrelation::kNone) api_launched_[api] = 1;
    }
    const uint64_t stream = Pack(r.device_id, r.stream_id);
    if (stream != last_stream) {
      context_device_.emplace(r.context_id, r.device_id);
      devices.insert(r.device_id);
      streams.insert(stream);
      last_stream = stream;
    }
  };
  for (size_t i = 0; i < p_.kernels.size(); ++i) {
    if (TraceKeepsKernel(filter_, i)) note_gpu(p_.kernels[i]);
  }
  for (const auto& r : p_.memcpys) {
    if (!filter_ || filter_->KeepMemcpy(r)) note_gpu(r);
  }
  for (const auto& r : p_.memsets) {
    if (!filter_ || filter_->KeepMemset(r)) note_gpu(r);
  }
  for (const auto& s : p_.syncs) {
    if (!HasValidTimes(s) || !TraceKeepsHost(filter_, s)) continue;
    const uint32_t device = SyncDevice(s);
    devices.insert(device);
    streams.insert(Pack(device, KinetoStreamTid(s.stream_id)));
  }
  devices_.assign(devices.begin(), devices.end());
  streams_.assign(streams.begin(), streams.end());
  std::sort(streams_.begin(), streams_.end());

  absl::flat_hash_set<uint64_t> host_threads;
  for (uint32_t i = 0; i < p_.api_calls.size(); ++i) {
    const model::ApiRecord& a = p_.api_calls[i];
    if (HasValidTimes(a) && TraceKeepsApi(filter_, i))
      host_threads.insert(Pack(HostPid(a.process_id), a.thread_id));
  }
  for (const auto& r : p_.ranges) {
    if (HasValidTimes(r) && TraceKeepsHost(filter_, r))
      host_threads.insert(Pack(HostPid(r.process_id), r.thread_id));
  }
  host_threads_.assign(host_threads.begin(), host_threads.end());
  std::sort(host_threads_.begin(), host_threads_.end());
  for (const auto& o : p_.overheads) {
    any_overhead_ = any_overhead_ || (HasValidTimes(o) && TraceKeepsHost(filter_, o));
  }
}

// Each described device's shape and its place in profile.devices (the last entry of
// an id that appears twice).
void TraceIndex::CollectShapes() {
  for (size_t i = 0; i < p_.devices.size(); ++i) {
    const model::DeviceInfo& d = p_.devices[i];
    if (d.id >= shapes_.size()) shapes_.resize(d.id + 1);
    shapes_[d.id] = {d.sm_count, d.warp_size};
    if (d.id < 4096) {  // device ids are small; a bigger one gets no occupancy
      if (d.id >= device_index_.size()) device_index_.resize(d.id + 1, -1);
      device_index_[d.id] = static_cast<int32_t>(i);
    }
  }
}

// gpu_user_annotation spans: per (range, device, stream), the first kernel start to
// the last kernel end of the kernels launched inside the range.
void TraceIndex::CollectAnnotationSpans() {
  if (p_.ranges.empty() || p_.kernels.empty()) return;
  const analysis::KernelRangeAttribution attribution =
      analysis::AttributeKernelsToRanges(p_, apis_);
  absl::flat_hash_map<SpanKey, Span> spans;
  for (size_t k = 0; k < p_.kernels.size(); ++k) {
    if (filter_ != nullptr && !filter_->KeepKernel(k)) continue;
    const model::KernelRecord& kernel = p_.kernels[k];
    const uint32_t op = attribution.kernel_range[k];
    if (op != analysis::KernelRangeAttribution::kNone) {
      // Kineto's External id: the enclosing CPU op (here the innermost range), on the
      // kernel and on the call that launched it.
      if (kernel_op_.empty()) kernel_op_.assign(p_.kernels.size(), kNoOp);
      kernel_op_[k] = op;
      const uint32_t api = apis_.Find(kernel.correlation_id);
      if (api != analysis::ApiByCorrelation::kNone) api_op_.emplace(api, op);
    }
    for (uint32_t r = attribution.kernel_range[k]; r != analysis::KernelRangeAttribution::kNone;
         r = attribution.range_parent[r]) {
      Span& s = spans[{r, kernel.device_id, kernel.stream_id}];
      s.start = std::min(s.start, kernel.start_ns);
      s.end = std::max(s.end, kernel.end_ns);
    }
  }
  annotation_spans_.insert(spans.begin(), spans.end());
}

// Hardware counters: the set that measured each launch, the metrics of each set, and
// the verdict of each signature (device, name, grid, block) by set index.
void TraceIndex::CollectCounters() {
  if (p_.counters.empty()) return;
  counters_of_set_.assign(p_.counters.size(), -1);
  for (size_t c = 0; c < counters_.size(); ++c) {
    reasons_.push_back(CountersReason(counters_[c]));
    for (uint32_t i : counters_[c].set_indices) {
      if (i < counters_of_set_.size()) counters_of_set_[i] = static_cast<int32_t>(c);
    }
  }
  set_metrics_.resize(p_.counters.size());
  for (uint32_t i = 0; i < p_.counters.size(); ++i) {
    const model::CounterSet& set = p_.counters[i];
    for (const auto& [metric, value] : set.values)
      set_metrics_[i].emplace_back(p_.str(metric), value);
    for (uint32_t id : set.correlation_ids) {
      if (id != 0) counter_set_of_.emplace(id, i);
    }
  }
}

const TraceIndex::DeviceShape* TraceIndex::Shape(uint32_t id) const {
  return id < shapes_.size() ? &shapes_[id] : nullptr;
}

const model::DeviceInfo* TraceIndex::Device(uint32_t id) const {
  if (id >= device_index_.size() || device_index_[id] < 0) return nullptr;
  return &p_.devices[static_cast<size_t>(device_index_[id])];
}

uint32_t TraceIndex::SyncDevice(const model::SyncRecord& s) const {
  auto it = context_device_.find(s.context_id);
  if (it != context_device_.end()) return it->second;
  return p_.devices.empty() ? 0 : p_.devices.front().id;
}

bool TraceIndex::HasLaunch(uint32_t correlation_id) const {
  if (correlation_id == 0) return false;
  const uint32_t api = apis_.Find(correlation_id);
  return api != analysis::ApiByCorrelation::kNone && TraceKeepsApi(filter_, api);
}

uint32_t TraceIndex::ApiOp(uint32_t api) const {
  if (api_op_.empty()) return kNoOp;
  auto it = api_op_.find(api);
  return it != api_op_.end() ? it->second : kNoOp;
}

TraceLaunchCounters TraceIndex::Counters(uint32_t correlation_id) const {
  TraceLaunchCounters out;
  if (counter_set_of_.empty() || correlation_id == 0) return out;
  auto it = counter_set_of_.find(correlation_id);
  if (it == counter_set_of_.end()) return out;
  out.set = &p_.counters[it->second];
  out.metrics = &set_metrics_[it->second];
  const int32_t c = counters_of_set_[it->second];
  if (c < 0) return out;
  out.analysis = &counters_[static_cast<size_t>(c)];
  out.reason = &reasons_[static_cast<size_t>(c)];
  return out;
}

}  // namespace cuscope::report
