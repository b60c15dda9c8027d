// What a trace of a profile works out once, before its events: the header, the tracks
// (GPUs, streams, host threads), the names, Kineto's External ids, the GPU annotation
// spans, the hardware counters of each launch and the GPU metric samples' layouts.
// Built from the profile, the counter analysis and the filter; no I/O.
// lib/report/trace_view.h reads it while it makes the events.
#ifndef CUSCOPE_LIB_REPORT_TRACE_INDEX_H_
#define CUSCOPE_LIB_REPORT_TRACE_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/torch_attribution.h"
#include "lib/model/profile.h"
#include "lib/report/trace_event.h"
#include "lib/report/trace_filter.h"
#include "lib/report/trace_names.h"
#include "lib/report/trace_samples.h"

namespace cuscope::report {

// The header's fields besides the device list (profile.devices).
// distributedInfo is always written (HTA refuses a trace without it): rank 0 and
// world size 1 for a run no launcher started.
struct TraceHeader {
  int rank = 0;                       // run.rank, 0 when the run has none
  std::optional<int64_t> world_size;  // run.notes.world_size; 1 for a run without rank
  std::optional<int64_t> local_rank;  // run.notes.local_rank
  std::string backend;                // "nccl" when NCCL kernels ran, else ""
  int64_t base_unix_ns = 0;           // baseTimeNanoseconds: the origin's Unix time
  uint64_t origin_ns = 0;             // clockOriginNanoseconds; timestamps are relative
};

// Kineto's thread id for a stream: the stream id as int32 made non-negative
// (sanitizeTid), so a sync without a stream (-1) lands on tid 1.
inline uint32_t KinetoStreamTid(uint32_t stream) {
  const int32_t s = static_cast<int32_t>(stream);
  if (s == INT32_MIN) return 0;
  return static_cast<uint32_t>(s < 0 ? -s : s);
}

// The filter's answers, everything kept without one (null). TraceKeepsKernel is false
// for the kernels merged into the first of their run.
template <typename Rec>
bool TraceKeepsHost(const TraceFilter* filter, const Rec& r) {
  return filter == nullptr || filter->KeepHost(r.start_ns, r.end_ns);
}
inline bool TraceKeepsApi(const TraceFilter* filter, uint32_t i) {
  return filter == nullptr || filter->KeepApi(i);
}
inline bool TraceKeepsKernel(const TraceFilter* filter, size_t i) {
  return filter == nullptr || (filter->KeepKernel(i) && filter->KernelCount(i) > 0);
}

// The hardware counters of one launch: the set that measured it, the set's metrics
// and, when the analysis judged the set's signature, that entry and its reason line.
struct TraceLaunchCounters {
  const model::CounterSet* set = nullptr;  // null: no set measured the launch
  const TraceMetrics* metrics = nullptr;
  const analysis::KernelCounters* analysis = nullptr;  // null: no verdict
  const std::string* reason = nullptr;
};

class TraceIndex {
 public:
  // A GPU user annotation's extent: the first kernel start to the last kernel end.
  struct Span {
    uint64_t start = UINT64_MAX, end = 0;
  };
  using SpanKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // (range, device, stream)
  // A device's shape, for the blocks and warps per SM of its kernels.
  struct DeviceShape {
    int sm_count = 0;
    int warp_size = 0;
  };
  static constexpr uint32_t kNoOp = 0xffffffffu;

  // `counters`: AnalyzeCounters of the profile (empty when it has no counter sets).
  // `filter`: what to keep and merge (null: everything, nothing merged). All must
  // outlive the index.
  TraceIndex(const model::Profile& profile, const std::vector<analysis::KernelCounters>& counters,
             const TraceFilter* filter);

  const TraceHeader& header() const { return header_; }
  const TraceNames& names() const { return names_; }
  const TraceSamples& samples() const { return samples_; }

  // Tracks, sorted: GPUs with kept work or samples, (device << 32 | stream) and
  // (pid << 32 | tid) of host threads with kept calls or ranges.
  const std::vector<uint32_t>& devices() const { return devices_; }
  const std::vector<uint64_t>& streams() const { return streams_; }
  const std::vector<uint64_t>& host_threads() const { return host_threads_; }
  bool any_overhead() const { return any_overhead_; }  // a kept CUPTI overhead record
  uint32_t run_pid() const { return run_pid_; }
  // A record's process id, the run's when the record has none (0).
  uint32_t HostPid(uint32_t pid) const { return pid != 0 ? pid : run_pid_; }
  // The shape of device `id`; null when the profile does not describe it.
  const DeviceShape* Shape(uint32_t id) const;
  // The profile's description of device `id` (ids below 4096); null when none.
  const model::DeviceInfo* Device(uint32_t id) const;
  // The device of a sync: the one its context's GPU work ran on (the first device when
  // the context ran none).
  uint32_t SyncDevice(const model::SyncRecord& s) const;
  // Whether API call `api` launched a kept GPU op.
  bool Launched(uint32_t api) const { return api_launched_[api] != 0; }
  // Whether the GPU op of `correlation_id` has a kept launching call (a flow).
  bool HasLaunch(uint32_t correlation_id) const;
  // The event record that sync `i` waited on (-1: none).
  int32_t EventWait(size_t i) const { return event_waits_[i]; }

  // Kineto's External id (the enclosing CPU op's id; here the innermost range's index
  // + 1) of kernel `i` and of API call `api`; kNoOp when none.
  uint32_t KernelOp(size_t i) const { return kernel_op_.empty() ? kNoOp : kernel_op_[i]; }
  uint32_t ApiOp(uint32_t api) const;
  // gpu_user_annotation spans: per (range, device, stream), the kernels launched
  // inside the range.
  const std::map<SpanKey, Span>& annotation_spans() const { return annotation_spans_; }

  // PyTorch attribution (a profile of `cuscope run --pytorch`): each kernel's op and
  // Python line; `any()` false for other profiles.
  const analysis::TorchAttribution& torch() const { return torch_; }
  // "file:line function" of a Python call site; "" for another location or none.
  std::string_view PythonLabel(model::LocationId id) const;

  // The hardware counters of the launch `correlation_id` (set null: none).
  TraceLaunchCounters Counters(uint32_t correlation_id) const;

 private:
  static uint64_t Pack(uint32_t hi, uint32_t lo) { return (uint64_t{hi} << 32) | lo; }
  void ComputeHeader();
  void CollectTracks();
  void CollectShapes();
  void CollectAnnotationSpans();
  void CollectCounters();

  const model::Profile& p_;
  const std::vector<analysis::KernelCounters>& counters_;
  const TraceFilter* filter_;
  uint32_t run_pid_ = 0;
  analysis::ApiByCorrelation apis_;
  analysis::TorchAttribution torch_;
  absl::flat_hash_map<model::LocationId, std::string> python_labels_;
  std::vector<int32_t> event_waits_;  // per sync: the event record it waited on (-1: none)
  TraceNames names_;
  TraceSamples samples_;
  TraceHeader header_;
  std::vector<uint8_t> api_launched_;   // per API call: it launched a GPU op
  std::vector<uint32_t> devices_;       // sorted
  std::vector<uint64_t> streams_;       // (device << 32 | stream), sorted
  std::vector<uint64_t> host_threads_;  // (pid << 32 | tid), sorted
  bool any_overhead_ = false;
  std::vector<DeviceShape> shapes_;    // by device id
  std::vector<int32_t> device_index_;  // device id -> index in profile.devices, -1: none
  absl::flat_hash_map<uint32_t, uint32_t> context_device_;  // context id -> device id
  // External ids: per kernel index (empty when no kernel ran inside a range) and per
  // API call.
  std::vector<uint32_t> kernel_op_;
  absl::flat_hash_map<uint32_t, uint32_t> api_op_;
  std::map<SpanKey, Span> annotation_spans_;
  // Hardware counters: the set that measured each launch, each set's metrics, and
  // the signature's verdict and reason line by set index (-1: none).
  absl::flat_hash_map<uint32_t, uint32_t> counter_set_of_;  // correlation id -> set index
  std::vector<TraceMetrics> set_metrics_;
  std::vector<int32_t> counters_of_set_;
  std::vector<std::string> reasons_;  // per counters_ entry
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_INDEX_H_
