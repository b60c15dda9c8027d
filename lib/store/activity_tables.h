// The devices and the activity tables of the profile file (GPU work, API calls,
// synchronization, ranges, overhead), declared for Table<Rec>::Visit (table.h).
#ifndef CUSCOPE_LIB_STORE_ACTIVITY_TABLES_H_
#define CUSCOPE_LIB_STORE_ACTIVITY_TABLES_H_

#include "lib/model/profile.h"
#include "lib/store/table.h"

namespace cuscope::store {

template <>
struct Table<model::DeviceInfo> {
  static constexpr char kName[] = "devices";
  static constexpr char kDoc[] =
      "One row per GPU the process saw (`DeviceInfo`). Rewritten devices keep their row (they "
      "are upserted by `id`), so rows stay in first-seen order.";
  static constexpr char kConstraints[] = "UNIQUE (id)";
  template <typename R, typename V>
  static void Visit(R& d, V& v) {
    v.Int("id", d.id, "CUDA device ordinal, as in the records' `device_id`; unique");
    v.Text("name", d.name, "e.g. `NVIDIA H200`");
    v.Text("uuid", d.uuid, "the GPU's UUID, hex");
    v.Int("compute_major", d.compute_major, "compute capability, major (e.g. 9)");
    v.Int("compute_minor", d.compute_minor, "compute capability, minor (e.g. 0)");
    v.Int("sm_count", d.sm_count, "streaming multiprocessors");
    v.Int("global_memory_bytes", d.global_memory_bytes, {"bytes", "device memory size"});
    v.Int("global_memory_bandwidth_kbps", d.global_memory_bandwidth_kbps,
          {"KB/s", "memory bandwidth, as CUPTI reports it"});
    v.Int("l2_cache_bytes", d.l2_cache_bytes, {"bytes", "L2 cache size"});
    v.Int("max_threads_per_block", d.max_threads_per_block, {"threads", "most threads a block"});
    v.Int("max_warps_per_sm", d.max_warps_per_sm, {"warps", "most resident warps an SM"});
    v.Int("max_blocks_per_sm", d.max_blocks_per_sm, {"blocks", "most resident blocks an SM"});
    v.Int("max_registers_per_sm", d.max_registers_per_sm,
          {"32-bit registers", "registers of an SM"});
    v.Int("max_registers_per_block", d.max_registers_per_block,
          {"32-bit registers", "most registers a block"});
    v.Int("max_shared_memory_per_sm", d.max_shared_memory_per_sm,
          {"bytes", "shared memory of an SM"});
    v.Int("max_shared_memory_per_block", d.max_shared_memory_per_block,
          {"bytes", "most shared memory a block"});
    v.Int("warp_size", d.warp_size, {"threads", "32 on current GPUs"});
    v.Int("core_clock_khz", d.core_clock_khz, {"kHz", "SM clock"});
  }
};

template <>
struct Table<model::KernelRecord> {
  static constexpr char kName[] = "kernels";
  static constexpr char kDoc[] =
      "One row per kernel execution (`KernelRecord`). CUPTI's own kernels are left out "
      "(counted in `meta.internal_kernels`).";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& k, V& v) {
    v.Int("start_ns", k.start_ns, {"ns, CUPTI clock", "when the kernel started on the GPU"});
    v.Int("end_ns", k.end_ns, {"ns, CUPTI clock", "when the kernel ended on the GPU"});
    v.Int("device_id", k.device_id, "`devices.id`");
    v.Int("context_id", k.context_id, "CUDA context (CUPTI's id)");
    v.Int("stream_id", k.stream_id, "CUDA stream (CUPTI's id)");
    v.Int("correlation_id", k.correlation_id,
          "links the kernel to the API call that launched it (`api_calls.correlation_id`)");
    v.StrId("name_id", k.name, "the demangled name (may be `''` if only the mangled one is known)");
    v.StrId("mangled_name_id", k.mangled_name, "the name as the compiler emitted it");
    v.Int("grid_x", k.grid.x, {"blocks", "grid dimension x"});
    v.Int("grid_y", k.grid.y, {"blocks", "grid dimension y"});
    v.Int("grid_z", k.grid.z, {"blocks", "grid dimension z"});
    v.Int("block_x", k.block.x, {"threads", "block dimension x"});
    v.Int("block_y", k.block.y, {"threads", "block dimension y"});
    v.Int("block_z", k.block.z, {"threads", "block dimension z"});
    v.Int("registers_per_thread", k.registers_per_thread, {"registers", "registers a thread"});
    v.Int("static_shared_bytes", k.static_shared_bytes,
          {"bytes", "statically allocated shared memory per block"});
    v.Int("dynamic_shared_bytes", k.dynamic_shared_bytes,
          {"bytes", "dynamically allocated shared memory per block"});
    v.Int("graph_id", k.graph_id, "the CUDA graph that launched it; 0 if not from a graph");
    v.Int("graph_node_id", k.graph_node_id, "the graph node; 0 if not from a graph");
    v.Int("flags", k.flags, {"bit set", kKernelFlagsDoc});
  }
  static constexpr char kKernelFlagsDoc[] =
      "bit 0 (`1`): counters were measured, so the kernel was serialized and slowed; bit 1 "
      "(`2`): its start and end were placed, not recorded (kernel replay, where CUPTI writes 0: "
      "at the end of its launch's API call, as long as its `gpu__time_duration.sum`; and records "
      "made from launches, bit 2). The writer places them when the run ends; a reader (`cuscope "
      "report`, `export`, ...) places in memory those a file still lacks (a run killed before "
      "its end, an earlier version's file); bit 2 (`4`): CUPTI wrote no record (rotate with "
      "instruction counters holds kernel records off while its sets run), this one was made "
      "from the launch's callback: no registers or static shared memory (0), placed from the "
      "end of its API call (or, when later, the end of the kernel before it on its stream), as "
      "long as its own sample's `gpu__time_duration.sum`, or else the median of its "
      "signature's samples, or else the median of its signature's launches CUPTI timed outside "
      "sets (untimed when it has neither)";
};

template <>
struct Table<model::MemcpyRecord> {
  static constexpr char kName[] = "memcpy";
  static constexpr char kDoc[] = "One row per memory copy (`MemcpyRecord`).";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& m, V& v) {
    v.Int("start_ns", m.start_ns, {"ns, CUPTI clock", "when the copy started"});
    v.Int("end_ns", m.end_ns, {"ns, CUPTI clock", "when the copy ended"});
    v.Int("device_id", m.device_id, "`devices.id` of the device it ran on");
    v.Int("context_id", m.context_id, "CUDA context (CUPTI's id)");
    v.Int("stream_id", m.stream_id, "CUDA stream (CUPTI's id)");
    v.Int("correlation_id", m.correlation_id, "the API call that issued it");
    v.Int("bytes", m.bytes, {"bytes", "size of the copy"});
    v.Int("kind", m.kind, "direction: HtoD, DtoH, DtoD, PtoP, ...");
    v.Int("src_kind", m.src_kind, "kind of the source memory (pageable, pinned, device, ...)");
    v.Int("dst_kind", m.dst_kind, "kind of the destination memory");
    v.Int("src_device_id", m.src_device_id,
          "source device; differs from `device_id` for peer copies");
    v.Int("dst_device_id", m.dst_device_id,
          "destination device; differs from `device_id` for peer copies");
    v.Int("graph_node_id", m.graph_node_id, "graph node, 0 if not from a graph");
  }
};

template <>
struct Table<model::MemsetRecord> {
  static constexpr char kName[] = "memset";
  static constexpr char kDoc[] = "One row per memset (`MemsetRecord`).";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& m, V& v) {
    v.Int("start_ns", m.start_ns, {"ns, CUPTI clock", "when the memset started"});
    v.Int("end_ns", m.end_ns, {"ns, CUPTI clock", "when the memset ended"});
    v.Int("device_id", m.device_id, "`devices.id` of the device it ran on");
    v.Int("context_id", m.context_id, "CUDA context (CUPTI's id)");
    v.Int("stream_id", m.stream_id, "CUDA stream (CUPTI's id)");
    v.Int("correlation_id", m.correlation_id, "the API call that issued it");
    v.Int("bytes", m.bytes, {"bytes", "size set"});
    v.Int("value", m.value, "the value written");
    v.Int("memory_kind", m.memory_kind, "kind of the memory set");
    v.Int("graph_node_id", m.graph_node_id, "graph node, 0 if not from a graph");
  }
};

template <>
struct Table<model::ApiRecord> {
  static constexpr char kName[] = "api_calls";
  static constexpr char kDoc[] =
      "One row per recorded CUDA runtime or driver API call (`ApiRecord`); which calls are "
      "recorded is set by `CUSCOPE_API`.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& a, V& v) {
    v.Int("start_ns", a.start_ns, {"ns, CUPTI clock", "when the call started on the CPU"});
    v.Int("end_ns", a.end_ns, {"ns, CUPTI clock", "when the call returned"});
    v.Int("domain", a.domain, "runtime or driver");
    v.Int("callback_id", a.callback_id,
          "CUPTI's callback id (cbid) of the function within its domain");
    v.StrId("name_id", a.name,
            "the function name, e.g. `cudaLaunchKernel_v7000`, `cuMemcpyHtoD_v2`");
    v.Int("process_id", a.process_id, "the calling process");
    v.Int("thread_id", a.thread_id, "the calling thread");
    v.Int("correlation_id", a.correlation_id,
          "matches the GPU activity the call caused (`kernels`, `memcpy`, `memset`)");
    v.Int("return_value", a.return_value,
          "the call's result (`cudaError_t` / `CUresult`); 0 is success");
  }
};

template <>
struct Table<model::SyncRecord> {
  static constexpr char kName[] = "syncs";
  static constexpr char kDoc[] =
      "One row per synchronization (`SyncRecord`): time a CPU thread (or stream) spent "
      "waiting.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& s, V& v) {
    v.Int("start_ns", s.start_ns, {"ns, CUPTI clock", "when the wait started"});
    v.Int("end_ns", s.end_ns, {"ns, CUPTI clock", "when the wait ended"});
    v.Int("type", s.type, "event, stream-wait-event, stream or context synchronize");
    v.Int("context_id", s.context_id, "CUDA context");
    v.Int("stream_id", s.stream_id, "stream; `4294967295` (0xffffffff) when not applicable");
    v.Int("correlation_id", s.correlation_id, "the API call that waited");
    v.Int("process_id", s.process_id, "the waiting process");
    v.Int("thread_id", s.thread_id, "the waiting thread");
    v.Int("event_id", s.event_id,
          "event waits (event synchronize, stream wait event): CUPTI's id of the CUDA event "
          "waited on; `4294967295` (0xffffffff) otherwise (since version 3)");
    v.Int("event_sync_id", s.event_sync_id,
          "event waits: CUPTI's id of the event's latest record before the wait (CUDA 12.8+), "
          "the `cuda_events.event_sync_id` of that record; `-1` (all bits set) otherwise (since "
          "version 3)");
  }
};

template <>
struct Table<model::CudaEventRecord> {
  static constexpr char kName[] = "cuda_events";
  static constexpr char kDoc[] =
      "One row per `cudaEventRecord` / `cuEventRecord` call (`CudaEventRecord`, CUPTI's "
      "`CUDA_EVENT` records, collected with syncs; since version 3): which event it recorded "
      "where. Its time is its API call's (same `correlation_id`). An event wait's record is the "
      "row whose `event_sync_id` is the wait's; in a profile whose rows carry no sync ids, the "
      "latest row of the same `event_id` whose `correlation_id` is below the wait's "
      "(`lib/analysis/event_waits.h`).";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& e, V& v) {
    v.Int("correlation_id", e.correlation_id, "the record call");
    v.Int("device_id", e.device_id, "`devices.id` of the device where the event was recorded");
    v.Int("context_id", e.context_id, "CUDA context where the event was recorded");
    v.Int("stream_id", e.stream_id, "stream where the event was recorded");
    v.Int("event_id", e.event_id,
          "CUPTI's id of the CUDA event (the same event recorded again keeps it)");
    v.Int("event_sync_id", e.event_sync_id,
          "unique per record; `-1` (all bits set) when CUPTI gives none");
  }
};

template <>
struct Table<model::RangeRecord> {
  static constexpr char kName[] = "ranges";
  static constexpr char kDoc[] =
      "One row per named span on a thread (`RangeRecord`): NVTX push/pop and start/end ranges, "
      "NVTX marks (`start_ns = end_ns`), and cuscope's own scopes.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& r, V& v) {
    v.Int("start_ns", r.start_ns, {"ns, CUPTI clock", "when the span started"});
    v.Int("end_ns", r.end_ns, {"ns, CUPTI clock", "when the span ended; `start_ns` for marks"});
    v.StrId("name_id", r.name, "the range's message");
    v.StrId("domain_id", r.domain, "the NVTX domain; `0` (`''`) for the default domain");
    v.Int("source", r.source, "NVTX push/pop, start/end, mark, or cuscope scope");
    v.Int("process_id", r.process_id, "the process that opened it");
    v.Int("thread_id", r.thread_id, "the thread that opened it");
    v.Int("range_id", r.id, "NVTX range id / cuscope scope id");
    v.Int("depth", r.depth, "nesting depth on its thread when pushed (0 = outermost)");
    v.Int("location_id", r.location,
          "the site that opened it: `source_locations.id`; `0` none (since version 5)");
  }
};

template <>
struct Table<model::SourceLocation> {
  static constexpr char kName[] = "source_locations";
  static constexpr char kDoc[] =
      "One row per source site that recorded something (`SourceLocation`, since version 5): "
      "a `CUSCOPE_SCOPE` or `cuscope_range_push_at` call site, referred to by id.";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& s, V& v) {
    v.Int("id", s.id, "the location's id, unique, not 0");
    v.Int("kind", s.kind, "what the site is: enum `source_location_kind`");
    v.StrId("file_id", s.file, "the source file as compiled (`__FILE__`); `''` unknown");
    v.Int("line", s.line, "1-based line in the file; `0` unknown");
    v.StrId("function_id", s.function, "the enclosing function (`__func__`); `''` unknown");
  }
};

template <>
struct Table<model::OverheadRecord> {
  static constexpr char kName[] = "overheads";
  static constexpr char kDoc[] =
      "One row per span of CUPTI's own overhead (`OverheadRecord`), and per span of 20 us or "
      "more in which cuscope's counter sampler held the program in a launch or region callback "
      "(thread 0; time that no API record covers, since CUPTI times a call between its "
      "callbacks). Such a span is cut by what the sampler did in it, one row per part (parts "
      "may be shorter than 20 us; together they cover the span exactly): `cuscope counters: "
      "setup` (the Range Profiler's setup on a context), `cuscope counters: counter image` "
      "(initializing a counter data image, and a new Range Profiler object for a larger one), "
      "`cuscope counters: measure` (a rotate pass's, a kernel replay's or a region instance's "
      "Start and Stop), `cuscope counters: decode` (decoding and evaluating a finished set), "
      "and `cuscope counters` for the rest (the only kind in profiles of earlier versions).";
  static constexpr char kConstraints[] = "";
  template <typename R, typename V>
  static void Visit(R& o, V& v) {
    v.Int("start_ns", o.start_ns, {"ns, CUPTI clock", "when the span started"});
    v.Int("end_ns", o.end_ns, {"ns, CUPTI clock", "when the span ended"});
    v.StrId("kind_id", o.kind, "what it was, e.g. `CUPTI buffer flush`, `cuscope counters`");
    v.Int("thread_id", o.thread_id, "the thread (or object id, as CUPTI reports it)");
    v.Int("correlation_id", o.correlation_id, "CUPTI's correlation id, if any");
  }
};

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_ACTIVITY_TABLES_H_
