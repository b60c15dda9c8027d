#include "lib/collect/convert.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "lib/model/demangle.h"

namespace cuscope::collect {

namespace {

// CUPTI's event sync id, or none: it marks "not applicable" with
// CUPTI_SYNCHRONIZATION_INVALID_VALUE (a uint32) in this 64-bit field.
uint64_t EventSyncId(uint64_t id) {
  return id == CUPTI_SYNCHRONIZATION_INVALID_VALUE || id == model::kNoEventSyncId
             ? model::kNoEventSyncId
             : id;
}

const char* OverheadName(CUpti_ActivityOverheadKind k) {
  switch (k) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
      return "driver compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
      return model::kOverheadBufferFlush;
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
      return model::kOverheadInstrumentation;
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
      return model::kOverheadResource;
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
      return "runtime-triggered module loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
      return "lazy function loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
      return "command buffer full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
      return model::kOverheadBufferRequest;
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
      return model::kOverheadUvmInit;
    default:
      return "unknown";
  }
}

// "cudaMemcpy_v3020" -> "cudaMemcpy": CUPTI names carry the API version they were
// introduced in; users know the calls by their names ("_ptsz" and "_v2" stay).
std::string StripVersionSuffix(const char* name) {
  std::string s(name);
  size_t at = s.rfind("_v");
  if (at == std::string::npos || at + 2 >= s.size() || s.size() - at < 5) return s;
  for (size_t i = at + 2; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return s;
  }
  s.resize(at);
  return s;
}

model::MemoryKind MemoryKindOf(uint32_t k) {
  return k <= 7 ? static_cast<model::MemoryKind>(k) : model::MemoryKind::kUnknown;
}

}  // namespace

const RecordConverter::KernelName& RecordConverter::LookupKernelName(const char* name) {
  if (name == nullptr) name = "";
  auto it = kernel_names_.find(name);
  // CUPTI shares one name pointer among all records of a function; compare the
  // text too, in case a pointer is reused after a module unloads. The text is read
  // from the string table by id: a pointer into it would dangle when a later Intern
  // grows the table (a short string lives inside the moved std::string).
  if (it != kernel_names_.end() && out_->strings.Get(it->second.mangled) == name) {
    return it->second;
  }
  KernelName kn;
  kn.mangled = out_->strings.Intern(name);
  kn.name = out_->strings.Intern(model::Demangle(name, model::DemangleLimit::kLong));
  return kernel_names_.insert_or_assign(name, kn).first->second;
}

model::StringId RecordConverter::ApiName(model::ApiDomain domain, uint32_t cbid) {
  uint64_t key = (uint64_t{static_cast<uint8_t>(domain)} << 32) | cbid;
  auto it = api_names_.find(key);
  if (it != api_names_.end()) return it->second;
  const char* name = nullptr;
  CUpti_CallbackDomain d = domain == model::ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API
                                                                : CUPTI_CB_DOMAIN_DRIVER_API;
  std::string text;
  if (cuptiGetCallbackName(d, cbid, &name) == CUPTI_SUCCESS && name != nullptr) {
    text = StripVersionSuffix(name);
  } else {
    text = absl::StrCat(domain == model::ApiDomain::kRuntime ? "runtime" : "driver", "#", cbid);
  }
  model::StringId id = out_->strings.Intern(text);
  api_names_.emplace(key, id);
  return id;
}

void RecordConverter::AddKernel(const CUpti_ActivityKernel10& k) {
  if (k.correlationId == 0) {
    // Kernels CUPTI launches for itself (counter collection) have no API call.
    ++stats_.internal_kernels;
    return;
  }
  const KernelName& kn = LookupKernelName(k.name);
  const MeasuredLaunches::Kind measured =
      measured_ == nullptr ? MeasuredLaunches::Kind::kNotMeasured
                           : measured_->Classify(k.correlationId, out_->strings.Get(kn.name));
  if (measured == MeasuredLaunches::Kind::kProfilerKernel) {
    ++stats_.internal_kernels;  // not the program's: its launch has a record of its own
    return;
  }
  model::KernelRecord& r = out_->kernels.emplace_back();
  r.start_ns = k.start;
  r.end_ns = k.end;
  r.device_id = k.deviceId;
  r.context_id = k.contextId;
  r.stream_id = k.streamId;
  r.correlation_id = k.correlationId;
  r.name = kn.name;
  r.mangled_name = kn.mangled;
  r.grid = {static_cast<uint32_t>(k.gridX), static_cast<uint32_t>(k.gridY),
            static_cast<uint32_t>(k.gridZ)};
  r.block = {static_cast<uint32_t>(k.blockX), static_cast<uint32_t>(k.blockY),
             static_cast<uint32_t>(k.blockZ)};
  r.registers_per_thread = k.registersPerThread;
  r.static_shared_bytes = static_cast<uint32_t>(k.staticSharedMemory);
  r.dynamic_shared_bytes = static_cast<uint32_t>(k.dynamicSharedMemory);
  r.graph_id = k.graphId;
  r.graph_node_id = k.graphNodeId;
  if (measured == MeasuredLaunches::Kind::kMeasured) r.flags |= model::kKernelCountersMeasured;
  if (measured_ != nullptr && k.graphId == 0) {
    measured_->KernelRecord(out_->strings.Get(kn.name), r.grid, r.block);
  }
}

void RecordConverter::AddMemcpy(const CUpti_ActivityMemcpy6& m) {
  model::MemcpyRecord& r = out_->memcpys.emplace_back();
  r.start_ns = m.start;
  r.end_ns = m.end;
  r.device_id = m.deviceId;
  r.context_id = m.contextId;
  r.stream_id = m.streamId;
  r.correlation_id = m.correlationId;
  r.bytes = m.bytes;
  r.kind =
      m.copyKind <= 10 ? static_cast<model::MemcpyKind>(m.copyKind) : model::MemcpyKind::kUnknown;
  r.src_kind = MemoryKindOf(m.srcKind);
  r.dst_kind = MemoryKindOf(m.dstKind);
  r.src_device_id = m.deviceId;
  r.dst_device_id = m.deviceId;
  r.graph_node_id = m.graphNodeId;
}

void RecordConverter::AddMemset(const CUpti_ActivityMemset4& m) {
  model::MemsetRecord& r = out_->memsets.emplace_back();
  r.start_ns = m.start;
  r.end_ns = m.end;
  r.device_id = m.deviceId;
  r.context_id = m.contextId;
  r.stream_id = m.streamId;
  r.correlation_id = m.correlationId;
  r.bytes = m.bytes;
  r.value = m.value;
  r.memory_kind = MemoryKindOf(m.memoryKind);
  r.graph_node_id = m.graphNodeId;
}

void RecordConverter::AddApi(const CUpti_ActivityAPI& a, model::ApiDomain domain) {
  if (domain == model::ApiDomain::kDriver && a.cbid == CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion &&
      a.start >= probe_after_ns_) {
    ++stats_.probe_records;
    return;
  }
  if (a.end > stats_.last_api_end_ns) stats_.last_api_end_ns = a.end;
  model::ApiRecord& r = out_->api_calls.emplace_back();
  r.start_ns = a.start;
  r.end_ns = a.end;
  r.domain = domain;
  r.callback_id = a.cbid;
  r.name = ApiName(domain, a.cbid);
  r.process_id = a.processId;
  r.thread_id = a.threadId;
  r.correlation_id = a.correlationId;
  r.return_value = static_cast<int32_t>(a.returnValue);
}

void RecordConverter::AddSync(const CUpti_ActivitySynchronization2& s) {
  model::SyncRecord& r = out_->syncs.emplace_back();
  r.start_ns = s.start;
  r.end_ns = s.end;
  r.type = s.type <= 4 ? static_cast<model::SyncType>(s.type) : model::SyncType::kUnknown;
  r.context_id = s.contextId;
  r.stream_id = s.streamId;
  r.correlation_id = s.correlationId;
  if (s.cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) r.event_id = s.cudaEventId;
  r.event_sync_id = EventSyncId(s.cudaEventSyncId);
}

void RecordConverter::AddCudaEvent(const CUpti_ActivityCudaEvent2& e) {
  model::CudaEventRecord& r = out_->event_records.emplace_back();
  r.correlation_id = e.correlationId;
  r.device_id = e.deviceId;
  r.context_id = e.contextId;
  r.stream_id = e.streamId;
  r.event_id = e.eventId;
  r.event_sync_id = EventSyncId(e.cudaEventSyncId);
}

void RecordConverter::AddMarker(const CUpti_ActivityMarker2& m) {
  uint32_t pid = 0, tid = 0;
  if (m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
      m.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    pid = m.objectId.pt.processId;
    tid = m.objectId.pt.threadId;
  }
  uint64_t thread_key = (uint64_t{pid} << 32) | tid;
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
    model::RangeRecord& r = out_->ranges.emplace_back();
    r.start_ns = r.end_ns = m.timestamp;
    r.name = out_->strings.Intern(m.name ? m.name : "");
    r.domain = out_->strings.Intern(m.domain ? m.domain : "");
    r.source = model::RangeSource::kNvtxMark;
    r.process_id = pid;
    r.thread_id = tid;
    r.id = m.id;
    r.depth = thread_depth_[thread_key];
    return;
  }
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    OpenRange open;
    open.thread_key = thread_key;
    model::RangeRecord& r = open.record;
    r.start_ns = m.timestamp;
    r.name = out_->strings.Intern(m.name ? m.name : "");
    r.domain = out_->strings.Intern(m.domain ? m.domain : "");
    r.source = model::RangeSource::kNvtxPushPop;
    r.process_id = pid;
    r.thread_id = tid;
    r.id = m.id;
    r.depth = thread_depth_[thread_key]++;
    open_ranges_.insert_or_assign(m.id, open);
    return;
  }
  if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    auto it = open_ranges_.find(m.id);
    if (it == open_ranges_.end()) {
      ++stats_.unmatched_range_ends;
      return;
    }
    model::RangeRecord r = it->second.record;
    uint32_t& depth = thread_depth_[it->second.thread_key];
    if (depth > 0) --depth;
    if (it->second.thread_key != thread_key) r.source = model::RangeSource::kNvtxStartEnd;
    r.end_ns = m.timestamp;
    open_ranges_.erase(it);
    out_->ranges.push_back(r);
  }
}

void RecordConverter::CloseOpenRanges(uint64_t end_ns) {
  for (auto& [id, open] : open_ranges_) {
    model::RangeRecord r = open.record;
    r.end_ns = end_ns > r.start_ns ? end_ns : r.start_ns;
    out_->ranges.push_back(r);
  }
  open_ranges_.clear();
  thread_depth_.clear();
}

void RecordConverter::AddOverhead(const CUpti_ActivityOverhead3& o) {
  model::OverheadRecord& r = out_->overheads.emplace_back();
  r.start_ns = o.start;
  r.end_ns = o.end;
  r.kind = out_->strings.Intern(OverheadName(o.overheadKind));
  r.thread_id = o.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o.objectId.pt.threadId : 0;
  r.correlation_id = o.correlationId;
}

void RecordConverter::AddDevice(const CUpti_ActivityDevice5& d) {
  model::DeviceInfo info;
  info.id = d.id;
  info.name = d.name ? d.name : "";
  static const char* kHex = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    uint8_t b = static_cast<uint8_t>(d.uuid.bytes[i]);
    info.uuid += kHex[b >> 4];
    info.uuid += kHex[b & 15];
  }
  info.compute_major = static_cast<int>(d.computeCapabilityMajor);
  info.compute_minor = static_cast<int>(d.computeCapabilityMinor);
  info.sm_count = static_cast<int>(d.numMultiprocessors);
  info.global_memory_bytes = static_cast<int64_t>(d.globalMemorySize);
  info.global_memory_bandwidth_kbps = static_cast<int64_t>(d.globalMemoryBandwidth);
  info.l2_cache_bytes = d.l2CacheSize;
  info.max_threads_per_block = static_cast<int>(d.maxThreadsPerBlock);
  info.max_warps_per_sm = static_cast<int>(d.maxWarpsPerMultiprocessor);
  info.max_blocks_per_sm = static_cast<int>(d.maxBlocksPerMultiprocessor);
  info.max_registers_per_sm = static_cast<int>(d.maxRegistersPerMultiprocessor);
  info.max_registers_per_block = static_cast<int>(d.maxRegistersPerBlock);
  info.max_shared_memory_per_sm = static_cast<int>(d.maxSharedMemoryPerMultiprocessor);
  info.max_shared_memory_per_block = static_cast<int>(d.maxSharedMemoryPerBlock);
  info.warp_size = static_cast<int>(d.numThreadsPerWarp);
  info.core_clock_khz = d.coreClockRate;
  for (auto& existing : out_->devices) {
    if (existing.id == info.id) {
      existing = info;
      stats_.devices_changed = true;
      return;
    }
  }
  out_->devices.push_back(info);
  stats_.devices_changed = true;
}

void RecordConverter::Add(const CUpti_Activity* record) {
  ++stats_.records;
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      AddKernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      AddMemcpy(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      AddMemset(*reinterpret_cast<const CUpti_ActivityMemset4*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      AddApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record), model::ApiDomain::kRuntime);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      AddApi(*reinterpret_cast<const CUpti_ActivityAPI*>(record), model::ApiDomain::kDriver);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      AddSync(*reinterpret_cast<const CUpti_ActivitySynchronization2*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      AddCudaEvent(*reinterpret_cast<const CUpti_ActivityCudaEvent2*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MARKER:
      AddMarker(*reinterpret_cast<const CUpti_ActivityMarker2*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      AddOverhead(*reinterpret_cast<const CUpti_ActivityOverhead3*>(record));
      break;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      AddDevice(*reinterpret_cast<const CUpti_ActivityDevice5*>(record));
      break;
    default:
      ++stats_.unknown_records;
      break;
  }
}

void RecordConverter::AddBuffer(uint8_t* buffer, size_t valid_bytes) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    Add(record);
  }
}

}  // namespace cuscope::collect
