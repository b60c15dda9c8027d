// CUPTI records -> model records, on hand-made CUPTI structs (no GPU needed).
#include "lib/collect/convert.h"

#include <cstring>

#include "gtest/gtest.h"

namespace cuscope::collect {
namespace {

template <typename T>
T Zeroed() {
  T t;
  std::memset(&t, 0, sizeof(t));
  return t;
}

TEST(Convert, KernelFieldsAndDemangledName) {
  model::Profile p;
  RecordConverter c(&p);
  auto k = Zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 100;
  k.end = 350;
  k.deviceId = 1;
  k.contextId = 2;
  k.streamId = 13;
  k.correlationId = 77;
  k.gridX = 4;
  k.gridY = 5;
  k.gridZ = 6;
  k.blockX = 128;
  k.blockY = 2;
  k.blockZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 2048;
  k.graphId = 3;
  k.graphNodeId = 1ull << 40;
  std::string name = "_Z5saxpyifPKfPf";
  k.name = name.c_str();
  c.Add(reinterpret_cast<CUpti_Activity*>(&k));
  c.Add(reinterpret_cast<CUpti_Activity*>(&k));
  ASSERT_EQ(p.kernels.size(), 2u);
  const model::KernelRecord& r = p.kernels[0];
  EXPECT_EQ(p.str(r.name), "saxpy(int, float, float const*, float*)");
  EXPECT_EQ(p.str(r.mangled_name), name);
  EXPECT_EQ(r.start_ns, 100u);
  EXPECT_EQ(r.duration_ns(), 250u);
  EXPECT_EQ(r.device_id, 1u);
  EXPECT_EQ(r.context_id, 2u);
  EXPECT_EQ(r.stream_id, 13u);
  EXPECT_EQ(r.correlation_id, 77u);
  EXPECT_EQ(r.grid, (model::Dim3{4, 5, 6}));
  EXPECT_EQ(r.block, (model::Dim3{128, 2, 1}));
  EXPECT_EQ(r.registers_per_thread, 40u);
  EXPECT_EQ(r.static_shared_bytes, 1024u);
  EXPECT_EQ(r.dynamic_shared_bytes, 2048u);
  EXPECT_EQ(r.graph_id, 3u);
  EXPECT_EQ(r.graph_node_id, 1ull << 40);
  EXPECT_EQ(p.kernels[1].name, r.name);  // interned once
  EXPECT_EQ(p.strings.size(), 3u);       // "", mangled, demangled
}

TEST(Convert, CuptiInternalKernelsAreCountedNotReported) {
  model::Profile p;
  RecordConverter c(&p);
  auto k = Zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "cupti_internal";
  k.correlationId = 0;
  c.Add(reinterpret_cast<CUpti_Activity*>(&k));
  EXPECT_TRUE(p.kernels.empty());
  EXPECT_EQ(c.stats().internal_kernels, 1u);
}

// Correlation id 7 was measured; its launch was of `_Z5saxpyifPKfPf`.
class OneMeasured : public MeasuredLaunches {
 public:
  Kind Classify(uint32_t correlation_id, const std::string& kernel_name) const override {
    if (correlation_id != 7) return Kind::kNotMeasured;
    return kernel_name == "saxpy(int, float, float const*, float*)" ? Kind::kMeasured
                                                                    : Kind::kProfilerKernel;
  }
  void KernelRecord(const std::string& kernel_name, const model::Dim3& grid,
                    const model::Dim3& block) override {
    records.push_back(kernel_name + " " + std::to_string(grid.x) + " " + std::to_string(block.x));
  }
  std::vector<std::string> records;  // the program's kernel records, as the sampler hears them
};

// A kernel record from 100 to 200 ns of `name` under `correlation`.
CUpti_ActivityKernel10 KernelAt(uint32_t correlation, const char* name) {
  auto k = Zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 100;
  k.end = 200;
  k.correlationId = correlation;
  k.name = name;
  return k;
}

TEST(Convert, RangeProfilerKernelsUnderAMeasuredLaunchAreLeftOut) {
  model::Profile p;
  OneMeasured measured;
  RecordConverter c(&p, &measured);
  // CUPTI's, with the measured launch's correlation id.
  CUpti_ActivityKernel10 k = KernelAt(7, "WaitNs");
  c.Add(reinterpret_cast<CUpti_Activity*>(&k));
  k.name = "_Z5saxpyifPKfPf";
  c.Add(reinterpret_cast<CUpti_Activity*>(&k));
  k.correlationId = 8;  // not measured: kept whatever its name
  k.name = "WaitNs";
  c.Add(reinterpret_cast<CUpti_Activity*>(&k));
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.strings.Get(p.kernels[0].name), "saxpy(int, float, float const*, float*)");
  EXPECT_NE(p.kernels[0].flags & model::kKernelCountersMeasured, 0u);
  EXPECT_EQ(p.kernels[1].correlation_id, 8u);
  EXPECT_EQ(p.kernels[1].flags & model::kKernelCountersMeasured, 0u);
  EXPECT_EQ(c.stats().internal_kernels, 1u);
  // The sampler hears of the program's two records, not of CUPTI's kernel.
  EXPECT_EQ(measured.records, (std::vector<std::string>{
                                  "saxpy(int, float, float const*, float*) 0 0", "WaitNs 0 0"}));
}

// A graph's kernels are not seen by the launch callbacks (graph_id set): the sampler
// does not hear of them, so they cannot bring the callbacks back on at every flush.
TEST(Convert, GraphKernelsAreNotReportedToTheSampler) {
  model::Profile p;
  OneMeasured measured;
  RecordConverter c(&p, &measured);
  CUpti_ActivityKernel10 k = KernelAt(9, "_Z5saxpyifPKfPf");
  k.gridX = 4;
  k.blockX = 256;
  k.graphId = 3;
  c.Add(reinterpret_cast<CUpti_Activity*>(&k));
  k.correlationId = 10;
  k.graphId = 0;
  c.Add(reinterpret_cast<CUpti_Activity*>(&k));
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(measured.records,
            (std::vector<std::string>{"saxpy(int, float, float const*, float*) 4 256"}));
}

TEST(Convert, MemcpyMemsetSyncApi) {
  model::Profile p;
  RecordConverter c(&p);
  auto m = Zeroed<CUpti_ActivityMemcpy6>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 1ull << 33;
  m.start = 10;
  m.end = 20;
  m.correlationId = 5;
  c.Add(reinterpret_cast<CUpti_Activity*>(&m));
  auto s = Zeroed<CUpti_ActivityMemset4>();
  s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  s.bytes = 4096;
  s.value = 0xab;
  s.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  c.Add(reinterpret_cast<CUpti_Activity*>(&s));
  auto y = Zeroed<CUpti_ActivitySynchronization2>();
  y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  y.start = 30;
  y.end = 90;
  c.Add(reinterpret_cast<CUpti_Activity*>(&y));
  auto a = Zeroed<CUpti_ActivityAPI>();
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  a.correlationId = 5;
  a.threadId = 9;
  c.Add(reinterpret_cast<CUpti_Activity*>(&a));
  auto v2 = a;
  v2.cbid = CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2;
  v2.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  c.Add(reinterpret_cast<CUpti_Activity*>(&v2));
  ASSERT_EQ(p.api_calls.size(), 2u);
  EXPECT_EQ(p.str(p.api_calls[1].name), "cuMemcpyHtoD_v2");  // "_v2" is part of the name
  EXPECT_EQ(p.api_calls[1].domain, model::ApiDomain::kDriver);
  ASSERT_EQ(p.memcpys.size(), 1u);
  EXPECT_EQ(p.memcpys[0].kind, model::MemcpyKind::kHtoD);
  EXPECT_EQ(p.memcpys[0].src_kind, model::MemoryKind::kPageable);
  EXPECT_EQ(p.memcpys[0].dst_kind, model::MemoryKind::kDevice);
  EXPECT_EQ(p.memcpys[0].bytes, 1ull << 33);
  ASSERT_EQ(p.memsets.size(), 1u);
  EXPECT_EQ(p.memsets[0].value, 0xabu);
  ASSERT_EQ(p.syncs.size(), 1u);
  EXPECT_EQ(p.syncs[0].type, model::SyncType::kStreamSynchronize);
  ASSERT_GE(p.api_calls.size(), 1u);
  EXPECT_EQ(p.str(p.api_calls[0].name), "cudaLaunchKernel");  // version suffix stripped
  EXPECT_EQ(p.api_calls[0].thread_id, 9u);
}

// An event wait carries the event and CUPTI's sync id; the record call its event,
// stream and the same sync id; "not applicable" becomes the model's none.
TEST(Convert, EventRecordsAndEventWaits) {
  model::Profile p;
  RecordConverter c(&p);
  auto e = Zeroed<CUpti_ActivityCudaEvent2>();
  e.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  e.correlationId = 41;
  e.contextId = 2;
  e.streamId = 13;
  e.eventId = 6;
  e.deviceId = 1;
  e.cudaEventSyncId = (uint64_t{1} << 33) + 9;
  c.Add(reinterpret_cast<CUpti_Activity*>(&e));
  auto w = Zeroed<CUpti_ActivitySynchronization2>();
  w.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  w.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  w.start = 30;
  w.end = 31;
  w.correlationId = 44;
  w.streamId = 7;
  w.cudaEventId = 6;
  w.cudaEventSyncId = (uint64_t{1} << 33) + 9;
  c.Add(reinterpret_cast<CUpti_Activity*>(&w));
  auto s = w;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  s.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  c.Add(reinterpret_cast<CUpti_Activity*>(&s));

  ASSERT_EQ(p.event_records.size(), 1u);
  const model::CudaEventRecord& r = p.event_records[0];
  EXPECT_EQ(r.correlation_id, 41u);
  EXPECT_EQ(r.context_id, 2u);
  EXPECT_EQ(r.stream_id, 13u);
  EXPECT_EQ(r.event_id, 6u);
  EXPECT_EQ(r.device_id, 1u);
  EXPECT_EQ(r.event_sync_id, (uint64_t{1} << 33) + 9);
  ASSERT_EQ(p.syncs.size(), 2u);
  EXPECT_EQ(p.syncs[0].type, model::SyncType::kStreamWaitEvent);
  EXPECT_EQ(p.syncs[0].event_id, 6u);
  EXPECT_EQ(p.syncs[0].event_sync_id, r.event_sync_id);
  EXPECT_EQ(p.syncs[1].event_id, model::kNoCudaEvent);
  EXPECT_EQ(p.syncs[1].event_sync_id, model::kNoEventSyncId);
}

TEST(Convert, ProbeRecordsAreCountedNotReported) {
  model::Profile p;
  RecordConverter c(&p);
  auto a = Zeroed<CUpti_ActivityAPI>();
  a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  a.cbid = CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion;
  a.start = 100;
  a.end = 110;
  c.Add(reinterpret_cast<CUpti_Activity*>(&a));  // the program's own call: kept
  c.set_probe_after(200);
  c.Add(reinterpret_cast<CUpti_Activity*>(&a));  // before the probe time: kept
  a.start = 250;
  a.end = 260;
  c.Add(reinterpret_cast<CUpti_Activity*>(&a));  // the probe
  EXPECT_EQ(p.api_calls.size(), 2u);
  EXPECT_EQ(c.stats().probe_records, 1u);
  EXPECT_EQ(c.stats().last_api_end_ns, 110u);  // the probe is not the program's
}

CUpti_ActivityMarker2 Marker(uint32_t flags, uint32_t id, uint64_t t, uint32_t tid,
                             const char* name) {
  auto m = Zeroed<CUpti_ActivityMarker2>();
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = static_cast<CUpti_ActivityFlag>(flags);
  m.id = id;
  m.timestamp = t;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.processId = 1;
  m.objectId.pt.threadId = tid;
  m.name = name;
  return m;
}

TEST(Convert, NvtxRangesArePairedAcrossBuffersWithDepth) {
  model::Profile p;
  RecordConverter c(&p);
  auto outer = Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 100, 5, "step");
  auto inner = Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 110, 5, "forward");
  auto inner_end = Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 150, 5, nullptr);
  auto mark = Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 3, 160, 5, "here");
  auto outer_end = Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 200, 5, nullptr);
  auto crossing = Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 4, 120, 5, "io");
  auto crossing_end = Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 4, 300, 6, nullptr);
  auto orphan_end = Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 99, 300, 6, nullptr);
  auto open = Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 5, 400, 6, "never closed");
  for (auto* m : {&outer, &inner, &crossing, &inner_end, &mark}) {
    c.Add(reinterpret_cast<CUpti_Activity*>(m));
  }
  // A later buffer.
  for (auto* m : {&outer_end, &crossing_end, &orphan_end, &open}) {
    c.Add(reinterpret_cast<CUpti_Activity*>(m));
  }
  c.CloseOpenRanges(1000);
  ASSERT_EQ(p.ranges.size(), 5u);
  auto find = [&](const std::string& n) {
    for (const auto& r : p.ranges) {
      if (p.str(r.name) == n) return r;
    }
    return model::RangeRecord{};
  };
  EXPECT_EQ(find("step").start_ns, 100u);
  EXPECT_EQ(find("step").end_ns, 200u);
  EXPECT_EQ(find("step").depth, 0u);
  EXPECT_EQ(find("forward").depth, 1u);
  EXPECT_EQ(find("forward").end_ns, 150u);
  EXPECT_EQ(find("here").source, model::RangeSource::kNvtxMark);
  EXPECT_EQ(find("io").source, model::RangeSource::kNvtxStartEnd);
  EXPECT_EQ(find("io").thread_id, 5u);  // the thread that started it
  EXPECT_EQ(find("never closed").end_ns, 1000u);
  EXPECT_EQ(c.stats().unmatched_range_ends, 1u);
}

TEST(Convert, DeviceRecord) {
  model::Profile p;
  RecordConverter c(&p);
  auto d = Zeroed<CUpti_ActivityDevice5>();
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.name = "NVIDIA H200";
  d.id = 0;
  d.numMultiprocessors = 132;
  d.computeCapabilityMajor = 9;
  d.globalMemorySize = 150ull << 30;
  d.uuid.bytes[0] = static_cast<char>(0xab);
  c.Add(reinterpret_cast<CUpti_Activity*>(&d));
  ASSERT_EQ(p.devices.size(), 1u);
  EXPECT_EQ(p.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(p.devices[0].sm_count, 132);
  EXPECT_EQ(p.devices[0].compute_major, 9);
  EXPECT_EQ(p.devices[0].uuid.substr(0, 4), "ab00");
  EXPECT_TRUE(c.stats().devices_changed);
}

}  // namespace
}  // namespace cuscope::collect
