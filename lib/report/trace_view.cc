#include "lib/report/trace_view.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "lib/analysis/occupancy.h"
#include "lib/analysis/summary.h"
#include "lib/model/enum_names.h"
#include "lib/report/kineto_names.h"
#include "lib/report/verdict_text.h"

namespace cuscope::report {
namespace {

using analysis::HasValidTimes;
using Kind = TraceArg::Kind;

constexpr uint32_t kNoStream = 0xffffffffu;

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

}  // namespace

TraceView::TraceView(const model::Profile& profile,
                     const std::vector<analysis::KernelCounters>& counters,
                     const TraceFilter* filter)
    : p_(profile), filter_(filter), index_(profile, counters, filter), own_(profile, filter) {}

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
  own_.Events(sink, e);
  index_.samples().Events(sink, e);
}

// Processes and threads: host processes and threads, GPUs and their streams, the
// CUPTI overhead pseudo-process.
void TraceView::MetadataEvents(TraceSink& sink, TraceEvent& e) const {
  const model::RunInfo& run = p_.run;
  std::set<uint32_t> host_pids;
  for (uint64_t key : index_.host_threads()) host_pids.insert(static_cast<uint32_t>(key >> 32));
  for (uint32_t pid : host_pids) {
    const std::string name = pid == index_.run_pid() && !run.command_line.empty()
                                 ? run.command_line
                                 : absl::StrCat("process ", pid);
    TraceMetadata(sink, e, "process_name", pid, 0, name);
    TraceSortIndex(sink, e, "process_sort_index", pid, 0, 0);
  }
  for (uint64_t key : index_.host_threads()) {
    const uint32_t pid = static_cast<uint32_t>(key >> 32), tid = static_cast<uint32_t>(key);
    TraceMetadata(sink, e, "thread_name", pid, tid, absl::StrCat("thread ", tid));
    TraceSortIndex(sink, e, "thread_sort_index", pid, tid, tid);
  }
  for (uint32_t id : index_.devices()) {
    std::string name = absl::StrCat("GPU ", id);
    const model::DeviceInfo* d = p_.FindDevice(id);
    if (d != nullptr && !d->name.empty()) absl::StrAppend(&name, " ", d->name);
    TraceMetadata(sink, e, "process_name", id, 0, name);
    TraceSortIndex(sink, e, "process_sort_index", id, 0, 0x1000000 + int64_t{id});
  }
  for (uint64_t key : index_.streams()) {
    const uint32_t device = static_cast<uint32_t>(key >> 32), stream = static_cast<uint32_t>(key);
    TraceMetadata(sink, e, "thread_name", device, stream, absl::StrCat("stream ", stream));
    TraceSortIndex(sink, e, "thread_sort_index", device, stream, stream);
  }
  if (index_.any_overhead()) {
    TraceMetadata(sink, e, "process_name", kTraceOverheadPid, 0, "CUPTI overhead");
    TraceSortIndex(sink, e, "process_sort_index", kTraceOverheadPid, 0, 0x2000000);
  }
  own_.Metadata(sink, e);
}

void TraceView::AnnotationEvents(TraceSink& sink, TraceEvent& e) const {
  for (const auto& [key, span] : index_.annotation_spans()) {
    const auto [r, device, stream] = key;
    const model::RangeRecord& range = p_.ranges[r];
    Complete(e, "gpu_user_annotation", p_.str(range.name), device, stream, span.start, span.end);
    Uint(e, "External id", r + 1);
    Uint(e, "range id", range.id);
    if (range.domain != model::kEmptyString) Str(e, "domain", p_.str(range.domain));
    sink.Event(e);
  }
}

void TraceView::KernelEvents(TraceSink& sink, TraceEvent& e) const {
  for (size_t i = 0; i < p_.kernels.size(); ++i) {
    const model::KernelRecord& k = p_.kernels[i];
    if (!HasValidTimes(k) || !KeepKernel(i)) continue;
    const uint32_t count = filter_ != nullptr ? filter_->KernelCount(i) : 1;
    const uint64_t end = count > 1 ? filter_->AggregateEnd(i) : k.end_ns;
    Complete(e, "kernel", index_.names().Kernel(i), k.device_id, k.stream_id, k.start_ns, end);
    if (count > 1) Uint(e, "aggregated kernels", count);
    const uint32_t op = index_.KernelOp(i);
    if (op != TraceIndex::kNoOp) Uint(e, "External id", op + 1);
    Uint(e, "queued", 0);  // CUPTI's queued time needs latency timestamps: not recorded
    Uint(e, "device", k.device_id);
    Uint(e, "context", k.context_id);
    Uint(e, "stream", k.stream_id);
    Uint(e, "correlation", k.correlation_id);
    Uint(e, "registers per thread", k.registers_per_thread);
    Uint(e, "shared memory", uint64_t{k.static_shared_bytes} + k.dynamic_shared_bytes);
    const TraceIndex::DeviceShape* shape = index_.Shape(k.device_id);
    if (shape != nullptr && shape->sm_count > 0) {
      const double blocks_per_sm =
          static_cast<double>(k.grid.volume()) / static_cast<double>(shape->sm_count);
      Num(e, "blocks per SM", blocks_per_sm);
      if (shape->warp_size > 0) {
        Num(e, "warps per SM",
            blocks_per_sm * static_cast<double>(k.block.volume()) / shape->warp_size);
      }
    }
    Dim(e, "grid", k.grid);
    Dim(e, "block", k.block);
    Int(e, "est. achieved occupancy %", EstimatedOccupancy(k));
    if (k.graph_id != 0) Uint(e, "graph id", k.graph_id);
    if (k.graph_node_id != 0) Uint(e, "graph node", k.graph_node_id);
    if (k.flags & model::kKernelCountersMeasured) Bool(e, "counters measured", true);
    if (k.flags & model::kKernelFromLaunch) Bool(e, "record made from the launch", true);
    KernelTorchArgs(i, e);
    KernelCounterArgs(k, e);
    sink.Event(e);
    if (index_.HasLaunch(k.correlation_id)) {
      Flow(sink, e, TracePhase::kFlowEnd, k.correlation_id, k.device_id, k.stream_id, k.start_ns);
    }
  }
}

// Kineto's "est. achieved occupancy %": the blocks resident per SM (the fewer of the
// theoretical limit and the grid's blocks per SM) times the block's threads, over
// the SM's threads, rounded; -1 when the device or the launch is unknown.
int64_t TraceView::EstimatedOccupancy(const model::KernelRecord& k) const {
  const model::DeviceInfo* d = index_.Device(k.device_id);
  if (d == nullptr || d->sm_count <= 0) return -1;
  const analysis::Occupancy o = analysis::LaunchOccupancy(*d, k);
  if (!o.valid) return -1;  // also a record made from its launch: registers unknown
  const uint64_t threads = k.block.volume();
  const double blocks = std::min(static_cast<double>(o.blocks_per_sm),
                                 static_cast<double>(k.grid.volume()) / d->sm_count);
  const int warp = d->warp_size > 0 ? d->warp_size : 32;
  const int max_threads = (d->max_warps_per_sm > 0 ? d->max_warps_per_sm : 64) * warp;
  return static_cast<int64_t>(0.5 + blocks * static_cast<double>(threads) / max_threads * 100.0);
}

// The counters of the set that measured the launch, and its signature's verdict.
// PyTorch attribution, as Perfetto and HTA show a kernel's arguments: its op (and input
// shapes), the forward op of a backward kernel, the Python line ("file:line function"),
// and whether these came from an earlier step's same launch.
void TraceView::KernelTorchArgs(size_t i, TraceEvent& e) const {
  const analysis::TorchAttribution& t = index_.torch();
  if (!t.any() || i >= t.kernels.size()) return;
  const analysis::TorchKernel& k = t.kernels[i];
  if (k.op != analysis::TorchKernel::kNone) {
    Str(e, "cpu op", analysis::TorchOpOf(p_, k.op));
    const std::string_view sizes = analysis::TorchSizesOf(p_, k.op);
    if (!sizes.empty()) Str(e, "input dims", sizes);
  }
  if (k.backward()) {
    Bool(e, "backward", true);
    if (k.forward != analysis::TorchKernel::kNone) {
      Str(e, "forward op", analysis::TorchOpOf(p_, k.forward));
    }
  }
  const std::string_view line = index_.PythonLabel(analysis::TorchLineOf(p_, k.line));
  if (!line.empty()) Str(e, "python", line);
  // Its step ran without op and line ranges (CUSCOPE_PYTORCH_STEPS): taken from the
  // same launch of the last attributed step.
  if (k.inherited) Bool(e, "attribution from an earlier step", true);
}

void TraceView::KernelCounterArgs(const model::KernelRecord& k, TraceEvent& e) const {
  const TraceLaunchCounters c = index_.Counters(k.correlation_id);
  if (c.set == nullptr) return;
  Add(e, "counters", Kind::kMetrics).metrics = c.metrics;
  Str(e, "counter strategy", model::CounterStrategyName(c.set->strategy));
  if (c.analysis == nullptr) return;
  Str(e, "verdict", analysis::VerdictName(c.analysis->verdict.bound));
  Str(e, "verdict reason", *c.reason);
}

void TraceView::CopyAndSetEvents(TraceSink& sink, TraceEvent& e) const {
  for (const model::MemcpyRecord& m : p_.memcpys) {
    if (!HasValidTimes(m) || (filter_ != nullptr && !filter_->KeepMemcpy(m))) continue;
    const std::string& name = index_.names().Memcpy(m);
    const uint64_t dur = m.duration_ns();
    Complete(e, "gpu_memcpy", name, m.device_id, m.stream_id, m.start_ns, m.end_ns);
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
    if (index_.HasLaunch(m.correlation_id)) {
      Flow(sink, e, TracePhase::kFlowEnd, m.correlation_id, m.device_id, m.stream_id, m.start_ns);
    }
  }
  for (const model::MemsetRecord& m : p_.memsets) {
    if (!HasValidTimes(m) || (filter_ != nullptr && !filter_->KeepMemset(m))) continue;
    const std::string& name = index_.names().Memset(m);
    const uint64_t dur = m.duration_ns();
    Complete(e, "gpu_memset", name, m.device_id, m.stream_id, m.start_ns, m.end_ns);
    Uint(e, "device", m.device_id);
    Uint(e, "context", m.context_id);
    Uint(e, "stream", m.stream_id);
    Uint(e, "correlation", m.correlation_id);
    Uint(e, "bytes", m.bytes);
    Num(e, "memory bandwidth (GB/s)", dur > 0 ? double(m.bytes) / double(dur) : 0.0);
    if (m.graph_node_id != 0) Uint(e, "graph node", m.graph_node_id);
    sink.Event(e);
    if (index_.HasLaunch(m.correlation_id)) {
      Flow(sink, e, TracePhase::kFlowEnd, m.correlation_id, m.device_id, m.stream_id, m.start_ns);
    }
  }
}

// CUDA API calls, with the flow start on the call that launched GPU work; syncs on
// the thread that waited.
void TraceView::ApiAndSyncEvents(TraceSink& sink, TraceEvent& e) const {
  for (uint32_t i = 0; i < p_.api_calls.size(); ++i) {
    const model::ApiRecord& a = p_.api_calls[i];
    if (!HasValidTimes(a) || !KeepApi(i)) continue;
    const std::string* name = &p_.str(a.name);
    if (name->empty()) name = &index_.names().UnnamedApi(a.callback_id);
    const int64_t pid = index_.HostPid(a.process_id);
    Complete(e, a.domain == model::ApiDomain::kDriver ? "cuda_driver" : "cuda_runtime", *name, pid,
             a.thread_id, a.start_ns, a.end_ns);
    const uint32_t op = index_.ApiOp(i);
    if (op != TraceIndex::kNoOp) Uint(e, "External id", op + 1);
    Uint(e, "cbid", a.callback_id);
    Uint(e, "correlation", a.correlation_id);
    if (a.return_value != 0) Int(e, "return value", a.return_value);
    sink.Event(e);
    if (index_.Launched(i)) {
      Flow(sink, e, TracePhase::kFlowStart, a.correlation_id, pid, a.thread_id, a.start_ns);
    }
  }
  // Kineto's shape: on the device, the stream as thread; an event wait names the
  // cudaEventRecord call it waited for and that call's stream (-1, HTA's "unknown", when
  // the profile does not say).
  for (size_t i = 0; i < p_.syncs.size(); ++i) {
    const model::SyncRecord& s = p_.syncs[i];
    if (!HasValidTimes(s) || !KeepHost(s)) continue;
    const uint32_t device = index_.SyncDevice(s);
    Complete(e, "cuda_sync", KinetoSyncKind(s.type), device, KinetoStreamTid(s.stream_id),
             s.start_ns, s.end_ns);
    Str(e, "cuda_sync_kind", KinetoSyncKind(s.type));
    if (s.type == model::SyncType::kEventSynchronize ||
        s.type == model::SyncType::kStreamWaitEvent) {
      const int32_t record = index_.EventWait(i);
      const model::CudaEventRecord* r = record >= 0 ? &p_.event_records[record] : nullptr;
      Int(e, "wait_on_stream", r != nullptr ? int64_t{r->stream_id} : -1);
      Int(e, "wait_on_cuda_event_record_corr_id", r != nullptr ? int64_t{r->correlation_id} : -1);
    }
    Int(e, "stream", s.stream_id == kNoStream ? -1 : static_cast<int32_t>(s.stream_id));
    Uint(e, "correlation", s.correlation_id);
    Uint(e, "device", device);
    Uint(e, "context", s.context_id);
    sink.Event(e);
  }
}

// NVTX ranges and scopes on their CPU thread, marks as instant events; CUPTI overhead.
void TraceView::RangeAndOverheadEvents(TraceSink& sink, TraceEvent& e) const {
  const model::SourceLocationIndex locations(p_.source_locations);
  std::string where;  // the "location" arg's text, alive until the event is written
  for (uint32_t i = 0; i < p_.ranges.size(); ++i) {
    const model::RangeRecord& r = p_.ranges[i];
    if (!HasValidTimes(r) || !KeepHost(r)) continue;
    const int64_t pid = index_.HostPid(r.process_id);
    const bool mark = r.source == model::RangeSource::kNvtxMark || r.end_ns == r.start_ns;
    Complete(e, "user_annotation", p_.str(r.name), pid, r.thread_id, r.start_ns, r.end_ns);
    if (mark) {
      e.phase = TracePhase::kInstant;
    } else {
      Uint(e, "External id", i + 1);
      Uint(e, "range id", r.id);
      Str(e, "source", model::EnumDisplayName(r.source));
      if (const model::SourceLocation* at = locations.Find(r.location); at != nullptr) {
        where = model::SourceLocationLabel(p_.str(at->file), at->line);
        if (!where.empty()) Str(e, "location", where);  // "file:line", only when known
      }
    }
    if (r.domain != model::kEmptyString) Str(e, "domain", p_.str(r.domain));
    sink.Event(e);
  }
  for (const model::OverheadRecord& o : p_.overheads) {
    if (!HasValidTimes(o) || !KeepHost(o)) continue;
    const std::string& kind = p_.str(o.kind);
    Complete(e, "overhead", kind.empty() ? std::string_view("CUPTI overhead") : kind,
             kTraceOverheadPid, o.thread_id, o.start_ns, o.end_ns);
    if (o.correlation_id != 0) Uint(e, "correlation", o.correlation_id);
    sink.Event(e);
  }
}

}  // namespace cuscope::report
