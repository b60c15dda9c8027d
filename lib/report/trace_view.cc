#include "lib/report/trace_view.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/summary.h"
#include "lib/model/demangle.h"
#include "lib/model/enum_names.h"
#include "lib/report/kineto_names.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {

using model::Demangle;
namespace {

using analysis::HasValidTimes;
using Kind = TraceArg::Kind;

constexpr uint32_t kNoStream = 0xffffffffu;

uint64_t Pack(uint32_t hi, uint32_t lo) { return (uint64_t{hi} << 32) | lo; }

// Appending arguments to an event.
TraceArg& Add(TraceEvent& e, std::string_view key, Kind kind) {
  TraceArg& a = e.args.emplace_back();
  a.key = key;
  a.kind = kind;
  return a;
}
void Int(TraceEvent& e, std::string_view key, int64_t v) { Add(e, key, Kind::kInt).i = v; }
void Uint(TraceEvent& e, std::string_view key, uint64_t v) { Add(e, key, Kind::kUint).u = v; }
void Num(TraceEvent& e, std::string_view key, double v) { Add(e, key, Kind::kDouble).d = v; }
void Bool(TraceEvent& e, std::string_view key, bool v) { Add(e, key, Kind::kBool).b = v; }
void Str(TraceEvent& e, std::string_view key, std::string_view v) {
  Add(e, key, Kind::kString).s = v;
}
void Dim(TraceEvent& e, std::string_view key, const model::Dim3& d) {
  Add(e, key, Kind::kDim).dim = d;
}

// Starts a complete event: clears the arguments.
void Complete(TraceEvent& e, const char* category, std::string_view name, int64_t pid, int64_t tid,
              uint64_t start_ns, uint64_t end_ns) {
  e.phase = TracePhase::kComplete;
  e.category = category;
  e.name = name;
  e.pid = pid;
  e.tid = tid;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.args.clear();
}

void Flow(TraceSink& sink, TraceEvent& e, TracePhase phase, uint32_t id, int64_t pid, int64_t tid,
          uint64_t ts_ns) {
  e.phase = phase;
  e.flow_id = id;
  e.pid = pid;
  e.tid = tid;
  e.start_ns = ts_ns;
  e.end_ns = ts_ns;
  e.args.clear();
  sink.Event(e);
}

// A metadata event with one argument: {"name": name} or {"sort_index": index}.
void BeginMetadata(TraceEvent& e, const char* what, int64_t pid, int64_t tid) {
  e.phase = TracePhase::kMetadata;
  e.category = what;
  e.name = {};
  e.pid = pid;
  e.tid = tid;
  e.start_ns = e.end_ns = 0;
  e.args.clear();
}
void Metadata(TraceSink& sink, TraceEvent& e, const char* what, int64_t pid, int64_t tid,
              std::string_view name) {
  BeginMetadata(e, what, pid, tid);
  Str(e, "name", name);
  sink.Event(e);
}
void SortIndex(TraceSink& sink, TraceEvent& e, const char* what, int64_t pid, int64_t tid,
               int64_t index) {
  BeginMetadata(e, what, pid, tid);
  Int(e, "sort_index", index);
  sink.Event(e);
}

}  // namespace

TraceView::TraceView(const model::Profile& profile,
                     const std::vector<analysis::KernelCounters>& counters)
    : p_(profile),
      counters_(counters),
      run_pid_(static_cast<uint32_t>(profile.run.pid)),
      apis_(profile) {
  ComputeHeader();
  CollectTracks();
  CollectNames();
  CollectAnnotationSpans();
  CollectCounters();
}

// Timestamps are written relative to an origin on CUPTI's clock so that they keep
// nanosecond precision as doubles; baseTimeNanoseconds is the origin's Unix time.
void TraceView::ComputeHeader() {
  const model::RunInfo& run = p_.run;
  if (run.start_unix_ns > 0 && run.start_ns > 0) {
    const uint64_t lo = p_.TimeSpan().first;
    header_.origin_ns = lo != 0 ? std::min<uint64_t>(lo, run.start_ns) : run.start_ns;
    header_.base_unix_ns =
        run.start_unix_ns - static_cast<int64_t>(run.start_ns - header_.origin_ns);
  }
  if (run.rank < 0) return;
  header_.rank = run.rank;
  for (const char* key : {"WORLD_SIZE", "world_size"}) {
    auto it = run.extra.find(key);
    if (it == run.extra.end()) continue;
    int64_t world_size = 0;
    const std::string& v = it->second;
    if (std::from_chars(v.data(), v.data() + v.size(), world_size).ec == std::errc()) {
      header_.world_size = world_size;
      break;
    }
  }
}

// The tracks (devices, streams, host threads) and the API calls that launched a GPU op
// (runtime preferred over driver: the one ApiByCorrelation finds).
void TraceView::CollectTracks() {
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
      devices.insert(r.device_id);
      streams.insert(stream);
      last_stream = stream;
    }
  };
  for (const auto& r : p_.kernels) note_gpu(r);
  for (const auto& r : p_.memcpys) note_gpu(r);
  for (const auto& r : p_.memsets) note_gpu(r);
  devices_.assign(devices.begin(), devices.end());
  streams_.assign(streams.begin(), streams.end());
  std::sort(streams_.begin(), streams_.end());

  absl::flat_hash_set<uint64_t> host_threads;
  for (const auto& a : p_.api_calls) {
    if (HasValidTimes(a)) host_threads.insert(Pack(HostPid(a.process_id), a.thread_id));
  }
  for (const auto& s : p_.syncs) {
    if (HasValidTimes(s)) host_threads.insert(Pack(HostPid(s.process_id), s.thread_id));
  }
  for (const auto& r : p_.ranges) {
    if (HasValidTimes(r)) host_threads.insert(Pack(HostPid(r.process_id), r.thread_id));
  }
  host_threads_.assign(host_threads.begin(), host_threads.end());
  std::sort(host_threads_.begin(), host_threads_.end());
  for (const auto& o : p_.overheads) any_overhead_ = any_overhead_ || HasValidTimes(o);
  for (const model::DeviceInfo& d : p_.devices) {
    if (d.id >= shapes_.size()) shapes_.resize(d.id + 1);
    shapes_[d.id] = {d.sm_count, d.warp_size};
  }
}

// Names: kernels demangled once per string id, copies and sets once per kind,
// unnamed API calls once per callback id.
void TraceView::CollectNames() {
  kernel_name_index_.assign(p_.strings.size(), -1);
  for (size_t i = 0; i < p_.kernels.size(); ++i) {
    const model::KernelRecord& k = p_.kernels[i];
    if (!HasValidTimes(k)) continue;
    const model::StringId id = !p_.str(k.name).empty() ? k.name : k.mangled_name;
    if (id >= kernel_name_index_.size()) {  // not in the string table
      odd_kernel_names_[i] = kernel_names_.size();
      kernel_names_.push_back(Demangle(analysis::KernelDisplayName(p_, k)));
      continue;
    }
    int32_t& slot = kernel_name_index_[id];
    if (slot >= 0) continue;
    slot = static_cast<int32_t>(kernel_names_.size());
    kernel_names_.push_back(Demangle(analysis::KernelDisplayName(p_, k)));
  }
  for (const model::MemcpyRecord& m : p_.memcpys) {
    if (!HasValidTimes(m)) continue;
    std::string& name = memcpy_names_[{static_cast<int>(m.kind), static_cast<int>(m.src_kind),
                                       static_cast<int>(m.dst_kind)}];
    if (name.empty()) {
      name = absl::StrCat("Memcpy ", model::MemcpyKindName(m.kind), " (",
                          KinetoMemoryKind(m.src_kind), " -> ", KinetoMemoryKind(m.dst_kind), ")");
    }
  }
  for (const model::MemsetRecord& m : p_.memsets) {
    if (!HasValidTimes(m)) continue;
    std::string& name = memset_names_[static_cast<int>(m.memory_kind)];
    if (name.empty()) name = absl::StrCat("Memset (", KinetoMemoryKind(m.memory_kind), ")");
  }
  for (const model::ApiRecord& a : p_.api_calls) {
    if (!HasValidTimes(a) || !p_.str(a.name).empty()) continue;
    std::string& name = unnamed_apis_[a.callback_id];
    if (name.empty()) name = absl::StrCat("<cbid ", a.callback_id, ">");
  }
}

const std::string& TraceView::KernelName(size_t index) const {
  const model::KernelRecord& k = p_.kernels[index];
  const model::StringId id = !p_.str(k.name).empty() ? k.name : k.mangled_name;
  if (id >= kernel_name_index_.size()) return kernel_names_[odd_kernel_names_.at(index)];
  return kernel_names_[static_cast<size_t>(kernel_name_index_[id])];
}

// gpu_user_annotation spans: per (range, device, stream), the first kernel start to
// the last kernel end of the kernels launched inside the range.
void TraceView::CollectAnnotationSpans() {
  if (p_.ranges.empty() || p_.kernels.empty()) return;
  const analysis::KernelRangeAttribution attribution =
      analysis::AttributeKernelsToRanges(p_, apis_);
  absl::flat_hash_map<SpanKey, Span> spans;
  for (size_t k = 0; k < p_.kernels.size(); ++k) {
    const model::KernelRecord& kernel = p_.kernels[k];
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
void TraceView::CollectCounters() {
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

bool TraceView::HasLaunch(uint32_t correlation_id) const {
  return correlation_id != 0 && apis_.Find(correlation_id) != analysis::ApiByCorrelation::kNone;
}

void TraceView::Events(TraceSink& sink) const {
  TraceEvent e;
  e.args.reserve(24);
  MetadataEvents(sink, e);
  // GPU user annotations come before the kernels they enclose, so that viewers that
  // keep file order for equal timestamps nest the kernels inside them.
  AnnotationEvents(sink, e);
  KernelEvents(sink, e);
  CopyAndSetEvents(sink, e);
  ApiAndSyncEvents(sink, e);
  RangeAndOverheadEvents(sink, e);
}

// Processes and threads: host processes and threads, GPUs and their streams, the
// CUPTI overhead pseudo-process.
void TraceView::MetadataEvents(TraceSink& sink, TraceEvent& e) const {
  const model::RunInfo& run = p_.run;
  std::set<uint32_t> host_pids;
  for (uint64_t key : host_threads_) host_pids.insert(static_cast<uint32_t>(key >> 32));
  for (uint32_t pid : host_pids) {
    const std::string name = pid == run_pid_ && !run.command_line.empty()
                                 ? run.command_line
                                 : absl::StrCat("process ", pid);
    Metadata(sink, e, "process_name", pid, 0, name);
    SortIndex(sink, e, "process_sort_index", pid, 0, 0);
  }
  for (uint64_t key : host_threads_) {
    const uint32_t pid = static_cast<uint32_t>(key >> 32), tid = static_cast<uint32_t>(key);
    Metadata(sink, e, "thread_name", pid, tid, absl::StrCat("thread ", tid));
    SortIndex(sink, e, "thread_sort_index", pid, tid, tid);
  }
  for (uint32_t id : devices_) {
    std::string name = absl::StrCat("GPU ", id);
    const model::DeviceInfo* d = p_.FindDevice(id);
    if (d != nullptr && !d->name.empty()) absl::StrAppend(&name, " ", d->name);
    Metadata(sink, e, "process_name", id, 0, name);
    SortIndex(sink, e, "process_sort_index", id, 0, 0x1000000 + int64_t{id});
  }
  for (uint64_t key : streams_) {
    const uint32_t device = static_cast<uint32_t>(key >> 32), stream = static_cast<uint32_t>(key);
    Metadata(sink, e, "thread_name", device, stream, absl::StrCat("stream ", stream));
    SortIndex(sink, e, "thread_sort_index", device, stream, stream);
  }
  if (any_overhead_) {
    Metadata(sink, e, "process_name", kTraceOverheadPid, 0, "CUPTI overhead");
    SortIndex(sink, e, "process_sort_index", kTraceOverheadPid, 0, 0x2000000);
  }
}

void TraceView::AnnotationEvents(TraceSink& sink, TraceEvent& e) const {
  for (const auto& [key, span] : annotation_spans_) {
    const auto [r, device, stream] = key;
    const model::RangeRecord& range = p_.ranges[r];
    Complete(e, "gpu_user_annotation", p_.str(range.name), device, stream, span.start, span.end);
    Uint(e, "range id", range.id);
    if (range.domain != model::kEmptyString) Str(e, "domain", p_.str(range.domain));
    sink.Event(e);
  }
}

void TraceView::KernelEvents(TraceSink& sink, TraceEvent& e) const {
  for (size_t i = 0; i < p_.kernels.size(); ++i) {
    const model::KernelRecord& k = p_.kernels[i];
    if (!HasValidTimes(k)) continue;
    Complete(e, "kernel", KernelName(i), k.device_id, k.stream_id, k.start_ns, k.end_ns);
    Uint(e, "External id", k.correlation_id);
    Uint(e, "device", k.device_id);
    Uint(e, "context", k.context_id);
    Uint(e, "stream", k.stream_id);
    Uint(e, "correlation", k.correlation_id);
    Uint(e, "registers per thread", k.registers_per_thread);
    Uint(e, "shared memory", uint64_t{k.static_shared_bytes} + k.dynamic_shared_bytes);
    if (k.device_id < shapes_.size() && shapes_[k.device_id].sm_count > 0) {
      const DeviceShape& shape = shapes_[k.device_id];
      const double blocks_per_sm =
          static_cast<double>(k.grid.volume()) / static_cast<double>(shape.sm_count);
      Num(e, "blocks per SM", blocks_per_sm);
      if (shape.warp_size > 0) {
        Num(e, "warps per SM",
            blocks_per_sm * static_cast<double>(k.block.volume()) / shape.warp_size);
      }
    }
    Dim(e, "grid", k.grid);
    Dim(e, "block", k.block);
    if (k.graph_id != 0) Uint(e, "graph id", k.graph_id);
    if (k.graph_node_id != 0) Uint(e, "graph node", k.graph_node_id);
    if (k.flags & model::kKernelCountersMeasured) Bool(e, "counters measured", true);
    KernelCounterArgs(k, e);
    sink.Event(e);
    if (HasLaunch(k.correlation_id)) {
      Flow(sink, e, TracePhase::kFlowEnd, k.correlation_id, k.device_id, k.stream_id, k.start_ns);
    }
  }
}

// The counters of the set that measured the launch, and its signature's verdict.
void TraceView::KernelCounterArgs(const model::KernelRecord& k, TraceEvent& e) const {
  if (counter_set_of_.empty() || k.correlation_id == 0) return;
  auto it = counter_set_of_.find(k.correlation_id);
  if (it == counter_set_of_.end()) return;
  const model::CounterSet& set = p_.counters[it->second];
  Add(e, "counters", Kind::kMetrics).metrics = &set_metrics_[it->second];
  Str(e, "counter strategy", model::CounterStrategyName(set.strategy));
  const int32_t c = counters_of_set_[it->second];
  if (c < 0) return;
  Str(e, "verdict", analysis::VerdictName(counters_[static_cast<size_t>(c)].verdict.bound));
  Str(e, "verdict reason", reasons_[static_cast<size_t>(c)]);
}

void TraceView::CopyAndSetEvents(TraceSink& sink, TraceEvent& e) const {
  for (const model::MemcpyRecord& m : p_.memcpys) {
    if (!HasValidTimes(m)) continue;
    const std::string& name = memcpy_names_.at(
        {static_cast<int>(m.kind), static_cast<int>(m.src_kind), static_cast<int>(m.dst_kind)});
    const uint64_t dur = m.duration_ns();
    Complete(e, "gpu_memcpy", name, m.device_id, m.stream_id, m.start_ns, m.end_ns);
    Uint(e, "External id", m.correlation_id);
    Uint(e, "device", m.device_id);
    Uint(e, "context", m.context_id);
    Uint(e, "stream", m.stream_id);
    Uint(e, "correlation", m.correlation_id);
    Uint(e, "bytes", m.bytes);
    Num(e, "memory bandwidth (GB/s)", dur > 0 ? double(m.bytes) / double(dur) : 0.0);
    if (m.kind == model::MemcpyKind::kPtoP || m.src_device_id != m.dst_device_id) {
      Uint(e, "src device", m.src_device_id);
      Uint(e, "dst device", m.dst_device_id);
    }
    if (m.graph_node_id != 0) Uint(e, "graph node", m.graph_node_id);
    sink.Event(e);
    if (HasLaunch(m.correlation_id)) {
      Flow(sink, e, TracePhase::kFlowEnd, m.correlation_id, m.device_id, m.stream_id, m.start_ns);
    }
  }
  for (const model::MemsetRecord& m : p_.memsets) {
    if (!HasValidTimes(m)) continue;
    const std::string& name = memset_names_.at(static_cast<int>(m.memory_kind));
    const uint64_t dur = m.duration_ns();
    Complete(e, "gpu_memset", name, m.device_id, m.stream_id, m.start_ns, m.end_ns);
    Uint(e, "External id", m.correlation_id);
    Uint(e, "device", m.device_id);
    Uint(e, "context", m.context_id);
    Uint(e, "stream", m.stream_id);
    Uint(e, "correlation", m.correlation_id);
    Uint(e, "bytes", m.bytes);
    Num(e, "memory bandwidth (GB/s)", dur > 0 ? double(m.bytes) / double(dur) : 0.0);
    if (m.graph_node_id != 0) Uint(e, "graph node", m.graph_node_id);
    sink.Event(e);
    if (HasLaunch(m.correlation_id)) {
      Flow(sink, e, TracePhase::kFlowEnd, m.correlation_id, m.device_id, m.stream_id, m.start_ns);
    }
  }
}

// CUDA API calls, with the flow start on the call that launched GPU work; syncs on
// the thread that waited.
void TraceView::ApiAndSyncEvents(TraceSink& sink, TraceEvent& e) const {
  for (uint32_t i = 0; i < p_.api_calls.size(); ++i) {
    const model::ApiRecord& a = p_.api_calls[i];
    if (!HasValidTimes(a)) continue;
    const std::string* name = &p_.str(a.name);
    if (name->empty()) name = &unnamed_apis_.at(a.callback_id);
    const int64_t pid = HostPid(a.process_id);
    Complete(e, a.domain == model::ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime", *name, pid,
             a.thread_id, a.start_ns, a.end_ns);
    Uint(e, "External id", a.correlation_id);
    Uint(e, "cbid", a.callback_id);
    Uint(e, "correlation", a.correlation_id);
    if (a.return_value != 0) Int(e, "return value", a.return_value);
    sink.Event(e);
    if (api_launched_[i]) {
      Flow(sink, e, TracePhase::kFlowStart, a.correlation_id, pid, a.thread_id, a.start_ns);
    }
  }
  for (const model::SyncRecord& s : p_.syncs) {
    if (!HasValidTimes(s)) continue;
    Complete(e, "cuda_sync", model::SyncTypeName(s.type), HostPid(s.process_id), s.thread_id,
             s.start_ns, s.end_ns);
    Str(e, "cuda_sync_kind", KinetoSyncKind(s.type));
    Int(e, "stream", s.stream_id == kNoStream ? -1 : static_cast<int32_t>(s.stream_id));
    Uint(e, "context", s.context_id);
    Uint(e, "correlation", s.correlation_id);
    sink.Event(e);
  }
}

// NVTX ranges and scopes on their CPU thread, marks as instant events; CUPTI overhead.
void TraceView::RangeAndOverheadEvents(TraceSink& sink, TraceEvent& e) const {
  for (const model::RangeRecord& r : p_.ranges) {
    if (!HasValidTimes(r)) continue;
    const int64_t pid = HostPid(r.process_id);
    const bool mark = r.source == model::RangeSource::kNvtxMark || r.end_ns == r.start_ns;
    Complete(e, "user_annotation", p_.str(r.name), pid, r.thread_id, r.start_ns, r.end_ns);
    if (mark) {
      e.phase = TracePhase::kInstant;
    } else {
      Uint(e, "range id", r.id);
      Str(e, "source", model::EnumDisplayName(r.source));
    }
    if (r.domain != model::kEmptyString) Str(e, "domain", p_.str(r.domain));
    sink.Event(e);
  }
  for (const model::OverheadRecord& o : p_.overheads) {
    if (!HasValidTimes(o)) continue;
    const std::string& kind = p_.str(o.kind);
    Complete(e, "overhead", kind.empty() ? std::string_view("CUPTI overhead") : kind,
             kTraceOverheadPid, o.thread_id, o.start_ns, o.end_ns);
    if (o.correlation_id != 0) Uint(e, "correlation", o.correlation_id);
    sink.Event(e);
  }
}

}  // namespace cuscope::report
