// The Chrome trace of a profile as data: the header and every event to write
// (processes, threads, GPU annotations, kernels, copies, sets, API calls, syncs,
// ranges, CUPTI overhead, the CPU-to-GPU flows and the GPU metric samples' counters),
// each with its arguments, in file order, following Kineto's conventions. Built from the profile
// and the counter analysis already done; no I/O. lib/report/chrome_trace.h serializes it.
//
// The events are handed to a sink one at a time (a trace may hold millions); an
// event's strings and argument lists live until the sink returns.
#ifndef CUSCOPE_LIB_REPORT_TRACE_VIEW_H_
#define CUSCOPE_LIB_REPORT_TRACE_VIEW_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/analysis/gpu_samples.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/analysis/regions.h"
#include "lib/model/profile.h"
#include "lib/report/trace_filter.h"

namespace cuscope::report {

// The metrics of one counter set, in the set's order.
using TraceMetrics = std::vector<std::pair<std::string_view, double>>;

// One argument of an event. `key` is a literal that needs no JSON escaping.
struct TraceArg {
  enum class Kind : uint8_t { kInt, kUint, kDouble, kBool, kString, kDim, kMetrics };
  std::string_view key;
  Kind kind = Kind::kInt;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;  // written as 0 when not finite
  bool b = false;
  std::string_view s;
  model::Dim3 dim;
  const TraceMetrics* metrics = nullptr;  // an object of metric name -> value
};

enum class TracePhase : uint8_t {
  kComplete,   // "X": a slice with a duration
  kInstant,    // "i" (thread scope): a mark
  kFlowStart,  // "s": ac2g flow on the launching API call
  kFlowEnd,    // "f": ac2g flow on the GPU op
  kMetadata,   // "M": process/thread names and sort indices (ts 0)
  kCounter,    // "C": one value of a counter series (name) of a process, args {"value"}
};

struct TraceEvent {
  TracePhase phase = TracePhase::kComplete;
  // Complete, instant and counter: the category ("kernel", "cuda_runtime",
  // "gpu_metrics", ...). Metadata: what it sets ("process_name", "thread_name",
  // "process_sort_index", ...).
  const char* category = "";
  std::string_view name;  // complete, instant and counter events (the series)
  int64_t pid = 0, tid = 0;
  uint64_t start_ns = 0, end_ns = 0;  // on CUPTI's clock; flows, counters: start_ns only
  uint64_t flow_id = 0;               // flows: the correlation id
  std::vector<TraceArg> args;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void Event(const TraceEvent& e) = 0;
};

// The header's fields besides the device list (profile.devices).
// distributedInfo is always written (HTA refuses a trace without it): rank 0 and
// world size 1 for a run no launcher started.
struct TraceHeader {
  int rank = 0;                       // run.rank, 0 when the run has none
  std::optional<int64_t> world_size;  // run.extra world_size; 1 for a run without rank
  std::optional<int64_t> local_rank;  // run.extra local_rank
  std::string backend;                // "nccl" when NCCL kernels ran, else ""
  int64_t base_unix_ns = 0;           // baseTimeNanoseconds: the origin's Unix time
  uint64_t origin_ns = 0;             // clockOriginNanoseconds; timestamps are relative
};

inline constexpr int64_t kTraceOverheadPid = -1;

// Kineto's thread id for a stream: the stream id as int32 made non-negative
// (sanitizeTid), so a sync without a stream (-1) lands on tid 1.
inline uint32_t KinetoStreamTid(uint32_t stream) {
  const int32_t s = static_cast<int32_t>(stream);
  if (s == INT32_MIN) return 0;
  return static_cast<uint32_t>(s < 0 ? -s : s);
}

class TraceView {
 public:
  // `counters`: AnalyzeCounters of the profile (empty when it has no counter sets).
  // `filter`: what to keep and merge (null: everything, nothing merged). All must
  // outlive the view.
  TraceView(const model::Profile& profile, const std::vector<analysis::KernelCounters>& counters,
            const TraceFilter* filter = nullptr);

  const model::Profile& profile() const { return p_; }
  const TraceHeader& header() const { return header_; }
  // Hands every event to `sink`, in file order.
  void Events(TraceSink& sink) const;

 private:
  struct Span {
    uint64_t start = UINT64_MAX, end = 0;
  };
  struct DeviceShape {
    int sm_count = 0;
    int warp_size = 0;
  };
  using SpanKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // (range, device, stream)

  static uint64_t Pack(uint32_t hi, uint32_t lo) { return (uint64_t{hi} << 32) | lo; }
  void ComputeHeader();
  void CollectTracks();
  void CollectNames();
  void CollectAnnotationSpans();
  void CollectCounters();
  void CollectSamples();
  uint32_t HostPid(uint32_t pid) const { return pid != 0 ? pid : run_pid_; }
  bool HasLaunch(uint32_t correlation_id) const;
  // The filter's answers (everything kept without one). KeepKernel is false for the
  // kernels merged into the first of their run.
  template <typename Rec>
  bool KeepHost(const Rec& r) const {
    return filter_ == nullptr || filter_->KeepHost(r.start_ns, r.end_ns);
  }
  bool KeepApi(uint32_t i) const { return filter_ == nullptr || filter_->KeepApi(i); }
  bool KeepKernel(size_t i) const {
    return filter_ == nullptr || (filter_->KeepKernel(i) && filter_->KernelCount(i) > 0);
  }
  uint32_t SyncDevice(const model::SyncRecord& s) const;
  int64_t EstimatedOccupancy(const model::KernelRecord& k) const;
  const std::string& KernelName(size_t index) const;

  void MetadataEvents(TraceSink& sink, TraceEvent& e) const;
  void AnnotationEvents(TraceSink& sink, TraceEvent& e) const;
  void KernelEvents(TraceSink& sink, TraceEvent& e) const;
  void KernelCounterArgs(const model::KernelRecord& k, TraceEvent& e) const;
  void CopyAndSetEvents(TraceSink& sink, TraceEvent& e) const;
  void ApiAndSyncEvents(TraceSink& sink, TraceEvent& e) const;
  void RangeAndOverheadEvents(TraceSink& sink, TraceEvent& e) const;
  void SampleEvents(TraceSink& sink, TraceEvent& e) const;

  const model::Profile& p_;
  const std::vector<analysis::KernelCounters>& counters_;
  const TraceFilter* filter_;
  TraceHeader header_;
  uint32_t run_pid_ = 0;
  analysis::ApiByCorrelation apis_;
  std::vector<uint8_t> api_launched_;   // per API call: it launched a GPU op
  std::vector<int32_t> event_waits_;    // per sync: the event record it waited on (-1: none)
  std::vector<uint32_t> devices_;       // sorted
  std::vector<uint64_t> streams_;       // (device << 32 | stream), sorted
  std::vector<uint64_t> host_threads_;  // (pid << 32 | tid), sorted
  bool any_overhead_ = false;
  // Kernel names, demangled once per string id (an out-of-table id once per record).
  std::vector<int32_t> kernel_name_index_;  // string id -> kernel_names_
  std::deque<std::string> kernel_names_;
  absl::flat_hash_map<size_t, size_t> odd_kernel_names_;  // kernel index -> kernel_names_
  std::map<uint32_t, std::string> unnamed_apis_;          // callback id -> "<cbid N>"
  std::map<std::tuple<int, int, int>, std::string> memcpy_names_;
  std::map<int, std::string> memset_names_;
  std::vector<DeviceShape> shapes_;    // by device id
  std::vector<int32_t> device_index_;  // device id -> index in profile.devices, -1: none
  absl::flat_hash_map<uint32_t, uint32_t> context_device_;  // context id -> device id
  // External ids (Kineto: the enclosing CPU op's id; here the innermost range's index
  // + 1): per kernel index (empty when no kernel ran inside a range) and per API call.
  static constexpr uint32_t kNoOp = 0xffffffffu;
  std::vector<uint32_t> kernel_op_;
  absl::flat_hash_map<uint32_t, uint32_t> api_op_;
  std::map<SpanKey, Span> annotation_spans_;
  // Hardware counters: the set that measured each launch, each set's metrics, and
  // the signature's verdict and reason line by set index (-1: none).
  absl::flat_hash_map<uint32_t, uint32_t> counter_set_of_;  // correlation id -> set index
  std::vector<TraceMetrics> set_metrics_;
  std::vector<int32_t> counters_of_set_;
  std::vector<std::string> reasons_;  // per counters_ entry
  // GPU metric samples: each sampled device's configuration (its first), resolved.
  std::map<uint32_t, analysis::SampleLayout> sample_layouts_;
};

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_TRACE_VIEW_H_
