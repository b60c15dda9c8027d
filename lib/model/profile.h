// The profile: what one run of a program under cuscope recorded, as plain data.
//
// No CUPTI types and no output formats live here. lib/collect converts CUPTI
// records into these structs; lib/store saves and loads them (SQLite);
// lib/analysis computes findings from them; lib/report writes them out.
//
// Times are nanoseconds on CUPTI's clock (the same clock for GPU and API records).
// Strings (kernel names, API names, NVTX names and domains) are interned in
// Profile::strings and referenced by StringId; id 0 is the empty string.
#ifndef CUSCOPE_LIB_MODEL_PROFILE_H_
#define CUSCOPE_LIB_MODEL_PROFILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/finding.h"
#include "lib/model/own_time.h"
#include "lib/model/pc_samples.h"
#include "lib/model/run_notes.h"
#include "lib/model/source_location.h"

namespace cuscope::model {

using StringId = uint32_t;
inline constexpr StringId kEmptyString = 0;

// Interned strings. Ids are dense, in insertion order, stable for the table's life.
class StringTable {
 public:
  StringTable();
  StringId Intern(std::string_view s);
  const std::string& Get(StringId id) const;  // "" for an id out of range
  size_t size() const { return strings_.size(); }
  // For loaders: appends s with the next id without deduplicating lookups of it
  // being required to be unique (a file written by us has unique strings).
  void AppendUnchecked(std::string s);
  void Clear();

 private:
  std::vector<std::string> strings_;
  absl::flat_hash_map<std::string, StringId> index_;
};

struct Dim3 {
  uint32_t x = 0, y = 0, z = 0;
  uint64_t volume() const { return uint64_t{x} * y * z; }
  bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

// One GPU as the profiled process saw it.
struct DeviceInfo {
  uint32_t id = 0;
  std::string name;
  std::string uuid;  // hex
  int compute_major = 0, compute_minor = 0;
  int sm_count = 0;
  int64_t global_memory_bytes = 0;
  int64_t global_memory_bandwidth_kbps = 0;  // as CUPTI reports it (KB/s)
  int64_t l2_cache_bytes = 0;
  int max_threads_per_block = 0;
  int max_warps_per_sm = 0;
  int max_blocks_per_sm = 0;
  int max_registers_per_sm = 0;
  int max_registers_per_block = 0;
  int max_shared_memory_per_sm = 0;
  int max_shared_memory_per_block = 0;
  int warp_size = 0;
  int64_t core_clock_khz = 0;
  bool operator==(const DeviceInfo& o) const;
};

// What describes the run as a whole.
struct RunInfo {
  std::string command_line;
  int64_t pid = 0;
  int64_t start_unix_ns = 0;  // wall clock when collection started
  int64_t end_unix_ns = 0;    // wall clock when collection ended (0 while running)
  uint64_t start_ns = 0;      // CUPTI clock when collection started
  uint64_t end_ns = 0;        // CUPTI clock when collection ended
  std::string cuscope_version;
  std::string hostname;
  int rank = -1;                  // RANK from the environment, -1 if unset
  uint64_t dropped_records = 0;   // records CUPTI dropped (buffer pool exhausted)
  uint64_t buffers_refused = 0;   // buffer requests refused because of the pool cap
  uint64_t internal_kernels = 0;  // CUPTI's own kernels, left out of `kernels`
  std::string exit_reason;        // "exit", "signal 2", "stop", ... (empty while running)
  RunNotes notes;                 // what the collector's parts say and the settings (run_notes.h)
  bool operator==(const RunInfo& o) const;
};

// Flags on a kernel launch.
enum KernelFlags : uint32_t {
  kKernelNone = 0,
  kKernelCountersMeasured = 1u << 0,  // serialized and slowed by counter collection
  // Start and end placed from the launch's API call and the profiler's duration
  // (kernel replay, where CUPTI writes none, and records made from launches):
  // lib/store/measured_times.h.
  kKernelTimePlaced = 1u << 1,
  // No CUPTI record: made from the launch's callback (rotate with instruction counters
  // holds kernel records off while its sets run); no registers or static shared memory
  // (0). Placed from the end of the launch's API call, as long as its sample's duration,
  // or the median of its signature's samples, or of its signature's launches CUPTI
  // timed: lib/store/measured_times.h.
  kKernelFromLaunch = 1u << 2,
};

struct KernelRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0;
  uint32_t correlation_id = 0;
  StringId name = kEmptyString;          // demangled
  StringId mangled_name = kEmptyString;  // as the compiler emitted it
  Dim3 grid, block;
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0, dynamic_shared_bytes = 0;
  uint32_t graph_id = 0;       // 0 if not launched from a graph
  uint64_t graph_node_id = 0;  // 0 if not launched from a graph
  uint32_t flags = kKernelNone;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const KernelRecord& o) const;
};

enum class MemcpyKind : uint8_t {
  kUnknown = 0,
  kHtoD,
  kDtoH,
  kHtoA,
  kAtoH,
  kAtoA,
  kAtoD,
  kDtoA,
  kDtoD,
  kHtoH,
  kPtoP
};
enum class MemoryKind : uint8_t {
  kUnknown = 0,
  kPageable,
  kPinned,
  kDevice,
  kArray,
  kManaged,
  kDeviceStatic,
  kManagedStatic
};
// Enum names come from the tables of lib/model/enum_names.h.
const char* MemcpyKindName(MemcpyKind k);  // "HtoD", ...
const char* MemoryKindName(MemoryKind k);  // "pageable", "pinned", ...

struct MemcpyRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0;
  uint32_t correlation_id = 0;
  uint64_t bytes = 0;
  MemcpyKind kind = MemcpyKind::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown, dst_kind = MemoryKind::kUnknown;
  uint32_t src_device_id = 0, dst_device_id = 0;  // differ from device_id for peer copies
  uint64_t graph_node_id = 0;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const MemcpyRecord& o) const;
};

struct MemsetRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0;
  uint32_t correlation_id = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
  MemoryKind memory_kind = MemoryKind::kUnknown;
  uint64_t graph_node_id = 0;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const MemsetRecord& o) const;
};

enum class ApiDomain : uint8_t { kRuntime = 0, kDriver = 1 };

struct ApiRecord {
  uint64_t start_ns = 0, end_ns = 0;
  ApiDomain domain = ApiDomain::kRuntime;
  uint32_t callback_id = 0;      // CUPTI's cbid within the domain
  StringId name = kEmptyString;  // "cudaLaunchKernel", "cuMemcpyHtoD_v2", ...
  uint32_t process_id = 0, thread_id = 0;
  uint32_t correlation_id = 0;
  int32_t return_value = 0;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const ApiRecord& o) const;
};

enum class SyncType : uint8_t {
  kUnknown = 0,
  kEventSynchronize,
  kStreamWaitEvent,
  kStreamSynchronize,
  kContextSynchronize
};
const char* SyncTypeName(SyncType t);  // "cudaEventSynchronize", ...

// "No CUDA event" in a SyncRecord (a stream or context sync), and "no event sync id".
inline constexpr uint32_t kNoCudaEvent = 0xffffffffu;
inline constexpr uint64_t kNoEventSyncId = ~uint64_t{0};

struct SyncRecord {
  uint64_t start_ns = 0, end_ns = 0;
  SyncType type = SyncType::kUnknown;
  uint32_t context_id = 0, stream_id = 0;  // stream 0xffffffff when not applicable
  uint32_t correlation_id = 0;
  uint32_t process_id = 0, thread_id = 0;
  // For an event sync or stream wait: the CUDA event waited on (CUPTI's event id), and
  // the id CUPTI gives the event's latest record before this wait (CUDA 12.8+), the
  // one a CudaEventRecord with the same event_sync_id carries.
  uint32_t event_id = kNoCudaEvent;
  uint64_t event_sync_id = kNoEventSyncId;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const SyncRecord& o) const;
};

// A cudaEventRecord (or cuEventRecord) call: which event it recorded, on which stream.
// No times of its own: its API call (same correlation id) has them.
struct CudaEventRecord {
  uint32_t correlation_id = 0;  // the record call's
  uint32_t device_id = 0, context_id = 0, stream_id = 0;
  uint32_t event_id = kNoCudaEvent;
  uint64_t event_sync_id = kNoEventSyncId;  // see SyncRecord
  bool operator==(const CudaEventRecord& o) const;
};

// Where a range came from. NVTX push/pop and start/end ranges and cuscope's own
// scopes are one concept: a named span on a thread.
enum class RangeSource : uint8_t { kNvtxPushPop = 0, kNvtxStartEnd, kNvtxMark, kScope };

struct RangeRecord {
  uint64_t start_ns = 0, end_ns = 0;  // equal for marks
  StringId name = kEmptyString;
  StringId domain = kEmptyString;  // "" for NVTX's default domain
  RangeSource source = RangeSource::kNvtxPushPop;
  uint32_t process_id = 0, thread_id = 0;
  uint64_t id = 0;                    // NVTX range id / cuscope scope id
  uint32_t depth = 0;                 // nesting depth on its thread at push time (0 = outermost)
  LocationId location = kNoLocation;  // its site in Profile::source_locations; 0: unknown
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const RangeRecord& o) const;
};

// The overhead kind of the time cuscope's counter sampler held the program's thread
// in a launch or region callback, where no named part below covers it. CUPTI times an API call
// between its ENTER and EXIT callbacks, so without these records that time would look like the
// program's own (an idle GPU while the CPU is outside CUDA).
inline constexpr char kCountersOverhead[] = "cuscope counters";
// The parts of that time the sampler names (lib/collect/held_phases.h): the Range
// Profiler's setup on a context; the counter image's initialization (and a new Range
// Profiler object for a larger one); a measurement's Start and Stop (a rotate pass, a
// kernel replay, a region instance); decoding and evaluating a finished set.
inline constexpr char kCountersSetup[] = "cuscope counters: setup";
inline constexpr char kCountersImage[] = "cuscope counters: counter image";
inline constexpr char kCountersMeasure[] = "cuscope counters: measure";
inline constexpr char kCountersDecode[] = "cuscope counters: decode";
inline bool IsCountersOverhead(std::string_view kind) {
  return kind.substr(0, sizeof(kCountersOverhead) - 1) == kCountersOverhead;
}

// CUPTI's overhead kinds that are the profiler's own cost (written by
// lib/collect/convert.cc under these names); its other kinds (driver compiler, module
// and function loading, a full command buffer) would happen without a profiler.
inline constexpr char kOverheadBufferFlush[] = "CUPTI buffer flush";
inline constexpr char kOverheadInstrumentation[] = "CUPTI instrumentation";
inline constexpr char kOverheadResource[] = "CUPTI resource";
inline constexpr char kOverheadBufferRequest[] = "activity buffer request";
inline constexpr char kOverheadUvmInit[] = "UVM activity init";
inline bool IsProfilerOverhead(std::string_view kind) {
  return kind == kOverheadBufferFlush || kind == kOverheadInstrumentation ||
         kind == kOverheadResource || kind == kOverheadBufferRequest || kind == kOverheadUvmInit;
}

// Time CUPTI itself spent (buffer flushes, instrumentation, ...), and cuscope's
// counter sampler (kCountersOverhead).
struct OverheadRecord {
  uint64_t start_ns = 0, end_ns = 0;
  StringId kind = kEmptyString;  // "CUPTI buffer flush", ...
  uint32_t thread_id = 0;        // or object id
  uint32_t correlation_id = 0;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const OverheadRecord& o) const;
};

// How hardware counters were collected for a CounterSet.
enum class CounterStrategy : uint8_t {
  kRotate = 0,        // user replay, auto range: successive windows of launches were the passes
  kKernelReplay = 1,  // all passes replayed on one launch (CUPTI saves/restores memory)
  kUserRange = 2,     // a region measured as a whole (user range)
  kSweep = 3,         // user replay, auto range, one pass: a window of consecutive launches
};
// "rotate", "kernel replay", "region", "sweep"
const char* CounterStrategyName(CounterStrategy s);

// Counter values of one kernel signature sample (or one region instance): the
// values of every metric of the configuration, each pass taken from one launch.
struct CounterSet {
  uint32_t device_id = 0;
  StringId name = kEmptyString;  // demangled kernel name, or region name
  Dim3 grid, block;              // the signature (zero for regions)
  CounterStrategy strategy = CounterStrategy::kRotate;
  uint32_t passes = 1;
  // Launches whose counters went into this set (one per pass for rotate, one for
  // kernel replay and the sweep): their kernel records carry kKernelCountersMeasured.
  std::vector<uint32_t> correlation_ids;
  std::vector<std::pair<StringId, double>> values;  // metric name -> value
  double value(const StringTable& strings, std::string_view metric, double fallback) const;
  bool operator==(const CounterSet& o) const;
};

// A property of a device measured by counters (peaks, clocks), by metric name,
// e.g. "dram__bytes.sum.peak_sustained" or "sm__cycles_elapsed.avg.per_second".
struct DeviceMetric {
  uint32_t device_id = 0;
  StringId metric = kEmptyString;
  double value = 0;
  bool operator==(const DeviceMetric& o) const;
};

// GPU metrics sampled at a fixed interval of GPU time (CUPTI PM sampling), as nsys's
// GPU metrics are: one configuration of metrics per device, named once here.
struct GpuSampleConfig {
  uint32_t device_id = 0;
  uint64_t interval_ns = 0;       // the interval asked for
  std::vector<StringId> metrics;  // metric names, in the order of GpuSample::values
  bool operator==(const GpuSampleConfig& o) const;
};

// One sample: the device's metrics over [start_ns, end_ns), on the kernel records'
// clock. `values` are in the order of its device's GpuSampleConfig::metrics.
struct GpuSample {
  uint32_t device_id = 0;
  uint64_t start_ns = 0, end_ns = 0;
  std::vector<double> values;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  bool operator==(const GpuSample& o) const;
};

// A whole profile, or (while collecting) a batch of new records that share the
// collector's growing string table.
struct Profile {
  RunInfo run;
  std::vector<DeviceInfo> devices;
  StringTable strings;
  std::vector<KernelRecord> kernels;
  std::vector<MemcpyRecord> memcpys;
  std::vector<MemsetRecord> memsets;
  std::vector<ApiRecord> api_calls;
  std::vector<SyncRecord> syncs;
  std::vector<CudaEventRecord> event_records;
  std::vector<RangeRecord> ranges;
  std::vector<OverheadRecord> overheads;
  std::vector<CounterSet> counters;
  std::vector<DeviceMetric> device_metrics;
  std::vector<GpuSampleConfig> sample_configs;
  std::vector<GpuSample> samples;
  // cuscope's own work: the intervals it held the GPU or a thread (own_time.h).
  std::vector<OwnInterval> own_time;
  // PC samples (the `source` setting; pc_samples.h): functions, counts, line tables of
  // the sampled PCs, and the text of those lines.
  std::vector<SampledFunction> sampled_functions;
  std::vector<PcSampleCount> pc_samples;
  std::vector<PcLine> pc_lines;
  std::vector<SourceText> source_text;
  // Where records come from (RangeRecord::location). Not records: record_count()
  // leaves them out; ClearRecords() clears them (a batch holds the new ones).
  std::vector<SourceLocation> source_locations;
  // The advisor's findings stored in the file (ranked), or nullopt when the file has
  // none stored (written before findings existed, or not finished): the readers then
  // compute them (lib/analysis/advise.h).
  std::optional<std::vector<Finding>> findings;

  const std::string& str(StringId id) const { return strings.Get(id); }
  // The device with this id, or nullptr.
  const DeviceInfo* FindDevice(uint32_t id) const {
    for (const DeviceInfo& d : devices) {
      if (d.id == id) return &d;
    }
    return nullptr;
  }
  size_t record_count() const;
  // The records of the program's own work: all but CUPTI's overhead records,
  // cuscope's device probes, GPU samples, own intervals and PC samples (a process that
  // did no CUDA work still gets those).
  size_t work_record_count() const {
    return record_count() - overheads.size() - device_metrics.size() - sample_configs.size() -
           samples.size() - own_time.size() - pc_record_count();
  }
  // The PC sampling records (functions, counts, lines, texts).
  size_t pc_record_count() const {
    return sampled_functions.size() + pc_samples.size() + pc_lines.size() + source_text.size();
  }
  // The sample configuration of a device, or nullptr.
  const GpuSampleConfig* FindSampleConfig(uint32_t device_id) const {
    for (const GpuSampleConfig& c : sample_configs) {
      if (c.device_id == device_id) return &c;
    }
    return nullptr;
  }
  // Clears the record vectors, keeping run info, devices and strings.
  void ClearRecords();
  // Earliest start and latest end over all records but GPU samples and own intervals
  // (0, 0 when there are none).
  std::pair<uint64_t, uint64_t> TimeSpan() const;
};

}  // namespace cuscope::model

#endif  // CUSCOPE_LIB_MODEL_PROFILE_H_
