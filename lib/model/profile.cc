#include "lib/model/profile.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/string_view.h"

namespace cuscope::model {

StringTable::StringTable() { Clear(); }

void StringTable::Clear() {
  strings_.clear();
  index_.clear();
  strings_.emplace_back();
  index_.emplace(std::string(), kEmptyString);
}

StringId StringTable::Intern(std::string_view s) {
  auto it = index_.find(absl::string_view(s.data(), s.size()));
  if (it != index_.end()) return it->second;
  StringId id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(strings_.back(), id);
  return id;
}

void StringTable::AppendUnchecked(std::string s) {
  StringId id = static_cast<StringId>(strings_.size());
  index_.emplace(s, id);
  strings_.push_back(std::move(s));
}

const std::string& StringTable::Get(StringId id) const {
  return id < strings_.size() ? strings_[id] : strings_[0];
}

bool DeviceInfo::operator==(const DeviceInfo& o) const {
  return std::tie(id, name, uuid, compute_major, compute_minor, sm_count, global_memory_bytes,
                  global_memory_bandwidth_kbps, l2_cache_bytes, max_threads_per_block,
                  max_warps_per_sm, max_blocks_per_sm, max_registers_per_sm,
                  max_registers_per_block, max_shared_memory_per_sm, max_shared_memory_per_block,
                  warp_size, core_clock_khz) ==
         std::tie(o.id, o.name, o.uuid, o.compute_major, o.compute_minor, o.sm_count,
                  o.global_memory_bytes, o.global_memory_bandwidth_kbps, o.l2_cache_bytes,
                  o.max_threads_per_block, o.max_warps_per_sm, o.max_blocks_per_sm,
                  o.max_registers_per_sm, o.max_registers_per_block, o.max_shared_memory_per_sm,
                  o.max_shared_memory_per_block, o.warp_size, o.core_clock_khz);
}

bool RunInfo::operator==(const RunInfo& o) const {
  return std::tie(command_line, pid, start_unix_ns, end_unix_ns, start_ns, end_ns, cuscope_version,
                  hostname, rank, dropped_records, buffers_refused, internal_kernels, exit_reason,
                  notes) == std::tie(o.command_line, o.pid, o.start_unix_ns, o.end_unix_ns,
                                     o.start_ns, o.end_ns, o.cuscope_version, o.hostname, o.rank,
                                     o.dropped_records, o.buffers_refused, o.internal_kernels,
                                     o.exit_reason, o.notes);
}

bool KernelRecord::operator==(const KernelRecord& o) const {
  return std::tie(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, name,
                  mangled_name, grid, block, registers_per_thread, static_shared_bytes,
                  dynamic_shared_bytes, graph_id, graph_node_id,
                  flags) == std::tie(o.start_ns, o.end_ns, o.device_id, o.context_id, o.stream_id,
                                     o.correlation_id, o.name, o.mangled_name, o.grid, o.block,
                                     o.registers_per_thread, o.static_shared_bytes,
                                     o.dynamic_shared_bytes, o.graph_id, o.graph_node_id, o.flags);
}

bool MemcpyRecord::operator==(const MemcpyRecord& o) const {
  return std::tie(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, bytes, kind,
                  src_kind, dst_kind, src_device_id, dst_device_id, graph_node_id) ==
         std::tie(o.start_ns, o.end_ns, o.device_id, o.context_id, o.stream_id, o.correlation_id,
                  o.bytes, o.kind, o.src_kind, o.dst_kind, o.src_device_id, o.dst_device_id,
                  o.graph_node_id);
}

bool MemsetRecord::operator==(const MemsetRecord& o) const {
  return std::tie(start_ns, end_ns, device_id, context_id, stream_id, correlation_id, bytes, value,
                  memory_kind, graph_node_id) ==
         std::tie(o.start_ns, o.end_ns, o.device_id, o.context_id, o.stream_id, o.correlation_id,
                  o.bytes, o.value, o.memory_kind, o.graph_node_id);
}

bool ApiRecord::operator==(const ApiRecord& o) const {
  return std::tie(start_ns, end_ns, domain, callback_id, name, process_id, thread_id,
                  correlation_id, return_value) ==
         std::tie(o.start_ns, o.end_ns, o.domain, o.callback_id, o.name, o.process_id, o.thread_id,
                  o.correlation_id, o.return_value);
}

bool SyncRecord::operator==(const SyncRecord& o) const {
  return std::tie(start_ns, end_ns, type, context_id, stream_id, correlation_id, process_id,
                  thread_id, event_id, event_sync_id) ==
         std::tie(o.start_ns, o.end_ns, o.type, o.context_id, o.stream_id, o.correlation_id,
                  o.process_id, o.thread_id, o.event_id, o.event_sync_id);
}

bool CudaEventRecord::operator==(const CudaEventRecord& o) const {
  return std::tie(correlation_id, device_id, context_id, stream_id, event_id, event_sync_id) ==
         std::tie(o.correlation_id, o.device_id, o.context_id, o.stream_id, o.event_id,
                  o.event_sync_id);
}

bool RangeRecord::operator==(const RangeRecord& o) const {
  return std::tie(start_ns, end_ns, name, domain, source, process_id, thread_id, id, depth,
                  location) == std::tie(o.start_ns, o.end_ns, o.name, o.domain, o.source,
                                        o.process_id, o.thread_id, o.id, o.depth, o.location);
}

bool OverheadRecord::operator==(const OverheadRecord& o) const {
  return std::tie(start_ns, end_ns, kind, thread_id, correlation_id) ==
         std::tie(o.start_ns, o.end_ns, o.kind, o.thread_id, o.correlation_id);
}

size_t Profile::record_count() const {
  return kernels.size() + memcpys.size() + memsets.size() + api_calls.size() + syncs.size() +
         event_records.size() + ranges.size() + overheads.size() + counters.size() +
         device_metrics.size() + sample_configs.size() + samples.size() + own_time.size() +
         pc_record_count();
}

double CounterSet::value(const StringTable& strings, std::string_view metric,
                         double fallback) const {
  for (const auto& [id, v] : values) {
    if (strings.Get(id) == metric) return v;
  }
  return fallback;
}

bool CounterSet::operator==(const CounterSet& o) const {
  return std::tie(device_id, name, grid, block, strategy, passes, correlation_ids, values) ==
         std::tie(o.device_id, o.name, o.grid, o.block, o.strategy, o.passes, o.correlation_ids,
                  o.values);
}

bool DeviceMetric::operator==(const DeviceMetric& o) const {
  return std::tie(device_id, metric, value) == std::tie(o.device_id, o.metric, o.value);
}

bool GpuSampleConfig::operator==(const GpuSampleConfig& o) const {
  return device_id == o.device_id && interval_ns == o.interval_ns && metrics == o.metrics;
}

bool GpuSample::operator==(const GpuSample& o) const {
  return device_id == o.device_id && start_ns == o.start_ns && end_ns == o.end_ns &&
         values == o.values;
}

void Profile::ClearRecords() {
  kernels.clear();
  memcpys.clear();
  memsets.clear();
  api_calls.clear();
  syncs.clear();
  event_records.clear();
  ranges.clear();
  overheads.clear();
  counters.clear();
  device_metrics.clear();
  sample_configs.clear();
  samples.clear();
  own_time.clear();
  source_locations.clear();
  sampled_functions.clear();
  pc_samples.clear();
  pc_lines.clear();
  source_text.clear();
}

namespace {
template <typename V>
void Widen(const V& records, uint64_t& lo, uint64_t& hi) {
  for (const auto& r : records) {
    if (r.start_ns != 0 && (lo == 0 || r.start_ns < lo)) lo = r.start_ns;
    if (r.end_ns > hi) hi = r.end_ns;
  }
}
}  // namespace

std::pair<uint64_t, uint64_t> Profile::TimeSpan() const {
  uint64_t lo = 0, hi = 0;
  Widen(kernels, lo, hi);
  Widen(memcpys, lo, hi);
  Widen(memsets, lo, hi);
  Widen(api_calls, lo, hi);
  Widen(syncs, lo, hi);
  Widen(ranges, lo, hi);
  Widen(overheads, lo, hi);
  return {lo, hi};
}

}  // namespace cuscope::model
