#include "lib/report/chrome_trace.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lib/analysis/regions.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/report/verdict_text.h"
#include "lib/analysis/summary.h"
#include "lib/report/demangle.h"
#include "lib/report/output_file.h"
#include "rapidjson/writer.h"

namespace cuscope::report {
namespace {

using analysis::HasValidTimes;

// A buffered FILE* output stream for rapidjson::Writer. The writer reserves room
// before each value (PutReserve) and then writes characters with PutUnsafe; the
// overloads below (found by argument-dependent lookup) make those writes plain
// stores, without FileWriteStream's bounds check per character.
class TraceStream {
 public:
  using Ch = char;
  explicit TraceStream(std::FILE* out) : out_(out), buffer_(kBufferSize) {
    cur_ = buffer_.data();
    end_ = cur_ + buffer_.size();
  }
  TraceStream(const TraceStream&) = delete;
  TraceStream& operator=(const TraceStream&) = delete;

  void Put(char c) {
    if (cur_ == end_) Flush();
    *cur_++ = c;
  }
  void PutUnchecked(char c) { *cur_++ = c; }
  // Copies n bytes into room already reserved with Reserve().
  void WriteUnchecked(const char* p, size_t n) {
    std::memcpy(cur_, p, n);
    cur_ += n;
  }
  void Reserve(size_t n) {
    if (static_cast<size_t>(end_ - cur_) >= n) return;
    Flush();
    if (buffer_.size() < n) {  // a value longer than the buffer (huge names)
      buffer_.resize(n);
      cur_ = buffer_.data();
      end_ = cur_ + buffer_.size();
    }
  }
  void Flush() {
    const size_t n = static_cast<size_t>(cur_ - buffer_.data());
    if (n > 0 && std::fwrite(buffer_.data(), 1, n, out_) != n) failed_ = true;
    cur_ = buffer_.data();
  }
  bool failed() const { return failed_; }

  // Unused by the writer, required by rapidjson's stream concept.
  char Peek() const { return '\0'; }
  char Take() { return '\0'; }
  size_t Tell() const { return 0; }
  char* PutBegin() { return nullptr; }
  size_t PutEnd(char*) { return 0; }

 private:
  static constexpr size_t kBufferSize = 1 << 18;
  std::FILE* out_;
  std::vector<char> buffer_;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  bool failed_ = false;
};
inline void PutReserve(TraceStream& stream, size_t count) { stream.Reserve(count); }
inline void PutUnsafe(TraceStream& stream, char c) { stream.PutUnchecked(c); }

// rapidjson's Writer plus two ways to write constant text without escaping it,
// both going through the Writer's own bookkeeping (Prefix/EndValue).
class Writer : public rapidjson::Writer<TraceStream> {
 public:
  explicit Writer(TraceStream& stream) : rapidjson::Writer<TraceStream>(stream) {}

  // A key that needs no escaping.
  void PlainKey(const char* key, size_t n) {
    Prefix(rapidjson::kStringType);
    os_->Reserve(n + 2);
    os_->PutUnchecked('"');
    os_->WriteUnchecked(key, n);
    os_->PutUnchecked('"');
    EndValue(true);
  }
  // Constant JSON text standing where a key goes: zero or more complete members
  // followed by one key, e.g. `"ph":"X","cat":"kernel","name"`; the next value
  // written belongs to that last key.
  void MembersThenKey(const std::string& text) {
    Prefix(rapidjson::kStringType);
    os_->Reserve(text.size());
    os_->WriteUnchecked(text.data(), text.size());
    EndValue(true);
  }
};

}  // namespace
}  // namespace cuscope::report

// Raw values (the timestamps) are copied with memcpy too.
template <>
inline bool rapidjson::Writer<cuscope::report::TraceStream>::WriteRawValue(const Ch* json,
                                                                           size_t length) {
  os_->Reserve(length);
  os_->WriteUnchecked(json, length);
  return true;
}

// rapidjson's WriteString hands the string to ScanWriteUnescapedString, which may
// copy a run of characters that need no escaping before the loop escapes the next
// one; by default it copies nothing. This specialization (for the TU-local stream
// only) copies each run with memcpy instead of character by character. The room
// was reserved by WriteString (2 + 6 * length bytes).
template <>
inline bool rapidjson::Writer<cuscope::report::TraceStream>::ScanWriteUnescapedString(
    StringStream& is, size_t length) {
  const char* const begin = is.src_;
  const char* const end = is.head_ + length;
  const char* p = begin;
  // Eight bytes at a time: any byte < 0x20, '"' or '\\' (exact "any" tests).
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    const uint64_t quote = w ^ (kOnes * '"'), backslash = w ^ (kOnes * '\\');
    const uint64_t special = ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) |
                             ((backslash - kOnes) & ~backslash);
    if (special & kHighs) break;
    p += 8;
  }
  while (p != end) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == '"' || c == '\\') break;
    ++p;
  }
  os_->WriteUnchecked(begin, static_cast<size_t>(p - begin));
  is.src_ = p;
  return p != end;
}

namespace cuscope::report {
namespace {

constexpr int64_t kOverheadPid = -1;
constexpr uint32_t kNoStream = 0xffffffffu;

// Kineto's names for memory kinds in "Memcpy HtoD (Pageable -> Device)".
const char* KinetoMemoryKind(model::MemoryKind k) {
  switch (k) {
    case model::MemoryKind::kPageable: return "Pageable";
    case model::MemoryKind::kPinned: return "Pinned";
    case model::MemoryKind::kDevice: return "Device";
    case model::MemoryKind::kArray: return "Array";
    case model::MemoryKind::kManaged: return "Managed";
    case model::MemoryKind::kDeviceStatic: return "Device Static";
    case model::MemoryKind::kManagedStatic: return "Managed Static";
    case model::MemoryKind::kUnknown: break;
  }
  return "Unknown";
}

// Kineto's "cuda_sync_kind" values.
const char* KinetoSyncKind(model::SyncType t) {
  switch (t) {
    case model::SyncType::kEventSynchronize: return "Event Sync";
    case model::SyncType::kStreamWaitEvent: return "Stream Wait Event";
    case model::SyncType::kStreamSynchronize: return "Stream Sync";
    case model::SyncType::kContextSynchronize: return "Context Sync";
    case model::SyncType::kUnknown: break;
  }
  return "Unknown Sync";
}

const char* RangeSourceName(model::RangeSource s) {
  switch (s) {
    case model::RangeSource::kNvtxPushPop: return "nvtx push/pop";
    case model::RangeSource::kNvtxStartEnd: return "nvtx start/end";
    case model::RangeSource::kNvtxMark: return "nvtx mark";
    case model::RangeSource::kScope: return "scope";
  }
  return "unknown";
}

// Streams trace events through a rapidjson::Writer, counting them.
class TraceWriter {
 public:
  TraceWriter(std::FILE* out, uint64_t origin_ns) : stream_(out), w_(stream_), origin_(origin_ns) {
    w_.SetMaxDecimalPlaces(6);
  }

  Writer& w() { return w_; }
  uint64_t events() const { return events_; }

  template <size_t N>
  void Key(const char (&k)[N]) {
    w_.PlainKey(k, N - 1);
  }
  template <size_t N>
  void Lit(const char (&s)[N]) {
    w_.String(s, N - 1);
  }
  void Str(const std::string& s) { w_.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
  void Str(const char* s) { w_.String(s, static_cast<rapidjson::SizeType>(std::strlen(s))); }
  void Num(double v) { w_.Double(std::isfinite(v) ? v : 0.0); }

  // Microseconds with nanosecond precision, exactly: "1234.567".
  void Micros(uint64_t ns) {
    char buf[32];
    char* end = std::to_chars(buf, buf + 24, ns / 1000).ptr;
    const uint32_t frac = static_cast<uint32_t>(ns % 1000);
    end[0] = '.';
    end[1] = static_cast<char>('0' + frac / 100);
    end[2] = static_cast<char>('0' + frac / 10 % 10);
    end[3] = static_cast<char>('0' + frac % 10);
    w_.RawValue(buf, static_cast<size_t>(end + 4 - buf), rapidjson::kNumberType);
  }
  void Ts(uint64_t ns) { Micros(ns > origin_ ? ns - origin_ : 0); }

  // {"ph":"X","cat":..,"name":..,"pid":..,"tid":..,"ts":..,"dur":..,"args":{ -- left open.
  template <size_t N>
  void BeginComplete(const char (&cat)[N], const std::string& name, int64_t pid, int64_t tid,
                     uint64_t start_ns, uint64_t end_ns) {
    ++events_;
    w_.StartObject();
    w_.MembersThenKey(CompletePrefix(cat));  // "ph":"X","cat":cat,"name"
    Str(name);
    Key("pid"), w_.Int64(pid);
    Key("tid"), w_.Int64(tid);
    Key("ts"), Ts(start_ns);
    Key("dur"), Micros(end_ns - start_ns);
    Key("args");
    w_.StartObject();
  }
  // Starts an event object of another kind, counting it.
  void BeginEvent() {
    ++events_;
    w_.StartObject();
  }
  void EndComplete() {
    w_.EndObject();
    w_.EndObject();
  }

  // Kineto's async CPU-to-GPU flow ("ac2g"): 's' on the launch, 'f' on the GPU op.
  void Flow(bool start, uint32_t id, int64_t pid, int64_t tid, uint64_t ts_ns) {
    static const std::string kStart = R"("ph":"s","cat":"ac2g","name":"ac2g","bp":"e","id")";
    static const std::string kFinish = R"("ph":"f","cat":"ac2g","name":"ac2g","bp":"e","id")";
    ++events_;
    w_.StartObject();
    w_.MembersThenKey(start ? kStart : kFinish);
    w_.Uint(id);
    Key("pid"), w_.Int64(pid);
    Key("tid"), w_.Int64(tid);
    Key("ts"), Ts(ts_ns);
    w_.EndObject();
  }

  template <size_t N>
  void Metadata(const char (&what)[N], int64_t pid, int64_t tid, const std::string& name) {
    ++events_;
    w_.StartObject();
    Key("name"), Lit(what);
    Key("ph"), Lit("M");
    Key("ts"), Micros(0);
    Key("pid"), w_.Int64(pid);
    Key("tid"), w_.Int64(tid);
    Key("args");
    w_.StartObject();
    Key("name"), Str(name);
    w_.EndObject();
    w_.EndObject();
  }
  template <size_t N>
  void SortIndex(const char (&what)[N], int64_t pid, int64_t tid, int64_t index) {
    ++events_;
    w_.StartObject();
    Key("name"), Lit(what);
    Key("ph"), Lit("M");
    Key("ts"), Micros(0);
    Key("pid"), w_.Int64(pid);
    Key("tid"), w_.Int64(tid);
    Key("args");
    w_.StartObject();
    Key("sort_index"), w_.Int64(index);
    w_.EndObject();
    w_.EndObject();
  }

  void Dim(const model::Dim3& d) {
    w_.StartArray();
    w_.Uint(d.x), w_.Uint(d.y), w_.Uint(d.z);
    w_.EndArray();
  }

  // Returns false when a write to the file failed.
  bool Flush() {
    stream_.Flush();
    return !stream_.failed();
  }

 private:
  // `"ph":"X","cat":"<cat>","name"`, built once per category.
  const std::string& CompletePrefix(const char* cat) {
    for (const auto& [c, prefix] : prefixes_) {
      if (c == cat) return prefix;
    }
    prefixes_.emplace_back(cat, absl::StrCat(R"("ph":"X","cat":")", cat, R"(","name")"));
    return prefixes_.back().second;
  }

  std::vector<std::pair<const char*, std::string>> prefixes_;
  TraceStream stream_;
  Writer w_;
  uint64_t origin_;
  uint64_t events_ = 0;
};

uint64_t Pack(uint32_t hi, uint32_t lo) { return (uint64_t{hi} << 32) | lo; }

struct DeviceShape {
  int sm_count = 0;
  int warp_size = 0;
};

absl::Status Write(const model::Profile& p, std::FILE* out, ChromeTraceStats* stats) {
  const model::RunInfo& run = p.run;
  const uint32_t run_pid = static_cast<uint32_t>(run.pid);
  // Host records without a process id belong to the profiled process.
  auto HostPid = [&](uint32_t pid) -> uint32_t { return pid != 0 ? pid : run_pid; };
  auto host_pid = [&](uint32_t pid) -> int64_t { return HostPid(pid); };

  // Timestamps are written relative to an origin on CUPTI's clock so that they keep
  // nanosecond precision as doubles; baseTimeNanoseconds is the origin's Unix time.
  uint64_t origin = 0;
  int64_t base_unix_ns = 0;
  if (run.start_unix_ns > 0 && run.start_ns > 0) {
    const auto [lo, hi] = p.TimeSpan();
    (void)hi;
    origin = lo != 0 ? std::min<uint64_t>(lo, run.start_ns) : run.start_ns;
    base_unix_ns = run.start_unix_ns - static_cast<int64_t>(run.start_ns - origin);
  }

  // --- Pre-pass: flows, tracks, names.
  // The launching API call of each GPU op (runtime preferred over driver); the
  // calls that launched something get a flow start.
  const analysis::ApiByCorrelation apis(p);
  std::vector<uint8_t> api_launched(p.api_calls.size(), 0);
  std::set<uint32_t> devices;
  absl::flat_hash_set<uint64_t> streams;  // (device, stream)
  for (const model::DeviceInfo& d : p.devices) devices.insert(d.id);
  uint64_t last_stream = ~uint64_t{0};
  auto note_gpu = [&](const auto& r) {
    if (!HasValidTimes(r)) return;
    if (r.correlation_id != 0) {
      const uint32_t api = apis.Find(r.correlation_id);
      if (api != analysis::ApiByCorrelation::kNone) api_launched[api] = 1;
    }
    const uint64_t stream = Pack(r.device_id, r.stream_id);
    if (stream != last_stream) {
      devices.insert(r.device_id);
      streams.insert(stream);
      last_stream = stream;
    }
  };
  auto has_launch = [&](uint32_t correlation_id) {
    return correlation_id != 0 && apis.Find(correlation_id) != analysis::ApiByCorrelation::kNone;
  };
  for (const auto& r : p.kernels) note_gpu(r);
  for (const auto& r : p.memcpys) note_gpu(r);
  for (const auto& r : p.memsets) note_gpu(r);

  absl::flat_hash_set<uint64_t> host_threads;  // (pid, tid)
  for (const auto& a : p.api_calls) {
    if (HasValidTimes(a)) host_threads.insert(Pack(HostPid(a.process_id), a.thread_id));
  }
  for (const auto& s : p.syncs) {
    if (HasValidTimes(s)) host_threads.insert(Pack(HostPid(s.process_id), s.thread_id));
  }
  for (const auto& r : p.ranges) {
    if (HasValidTimes(r)) host_threads.insert(Pack(HostPid(r.process_id), r.thread_id));
  }
  std::set<uint32_t> overhead_threads;
  for (const auto& o : p.overheads) {
    if (HasValidTimes(o)) overhead_threads.insert(o.thread_id);
  }

  // Kernel names, resolved once per string id.
  std::vector<std::string> kernel_names;
  std::vector<int32_t> kernel_name_index(p.strings.size(), -1);
  std::string scratch_name;
  auto kernel_name = [&](const model::KernelRecord& k) -> const std::string& {
    const model::StringId id = !p.str(k.name).empty() ? k.name : k.mangled_name;
    if (id >= kernel_name_index.size()) {  // not in the string table
      scratch_name = Demangle(analysis::KernelDisplayName(p, k));
      return scratch_name;
    }
    int32_t& slot = kernel_name_index[id];
    if (slot < 0) {
      slot = static_cast<int32_t>(kernel_names.size());
      kernel_names.push_back(Demangle(analysis::KernelDisplayName(p, k)));
    }
    return kernel_names[static_cast<size_t>(slot)];
  };
  std::vector<DeviceShape> shapes;
  for (const model::DeviceInfo& d : p.devices) {
    if (d.id >= shapes.size()) shapes.resize(d.id + 1);
    shapes[d.id] = {d.sm_count, d.warp_size};
  }

  // gpu_user_annotation spans: per (range, device, stream), the first kernel start
  // to the last kernel end of the kernels launched inside the range.
  struct Span {
    uint64_t start = UINT64_MAX, end = 0;
  };
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Span> annotation_spans;
  if (!p.ranges.empty() && !p.kernels.empty()) {
    const analysis::KernelRangeAttribution attribution =
        analysis::AttributeKernelsToRanges(p, apis);
    absl::flat_hash_map<std::tuple<uint32_t, uint32_t, uint32_t>, Span> spans;
    for (size_t k = 0; k < p.kernels.size(); ++k) {
      const model::KernelRecord& kernel = p.kernels[k];
      for (uint32_t r = attribution.kernel_range[k]; r != analysis::KernelRangeAttribution::kNone;
           r = attribution.range_parent[r]) {
        Span& s = spans[{r, kernel.device_id, kernel.stream_id}];
        s.start = std::min(s.start, kernel.start_ns);
        s.end = std::max(s.end, kernel.end_ns);
      }
    }
    annotation_spans.insert(spans.begin(), spans.end());
  }

  // Hardware counters: the set that measured each launch, and the verdict of each
  // signature (device, name, grid, block) by set index.
  absl::flat_hash_map<uint32_t, uint32_t> counter_set_of;  // correlation id -> set index
  std::vector<const analysis::KernelCounters*> verdict_of_set;
  std::vector<analysis::KernelCounters> kernel_counters;
  if (!p.counters.empty()) {
    kernel_counters = analysis::AnalyzeCounters(p);
    verdict_of_set.resize(p.counters.size(), nullptr);
    for (const analysis::KernelCounters& kc : kernel_counters) {
      for (uint32_t i : kc.set_indices) verdict_of_set[i] = &kc;
    }
    for (uint32_t i = 0; i < p.counters.size(); ++i) {
      const model::CounterSet& set = p.counters[i];
      for (uint32_t id : set.correlation_ids) {
        if (id != 0) counter_set_of.emplace(id, i);
      }
    }
  }

  // --- Header.
  TraceWriter t(out, origin);
  Writer& w = t.w();
  w.StartObject();
  t.Key("schemaVersion"), w.Int(1);
  t.Key("deviceProperties");
  w.StartArray();
  for (const model::DeviceInfo& d : p.devices) {
    w.StartObject();
    t.Key("id"), w.Uint(d.id);
    t.Key("name"), t.Str(d.name);
    t.Key("totalGlobalMem"), w.Int64(d.global_memory_bytes);
    t.Key("computeMajor"), w.Int(d.compute_major);
    t.Key("computeMinor"), w.Int(d.compute_minor);
    t.Key("maxThreadsPerBlock"), w.Int(d.max_threads_per_block);
    t.Key("maxThreadsPerMultiprocessor"), w.Int(d.max_warps_per_sm * d.warp_size);
    t.Key("regsPerBlock"), w.Int(d.max_registers_per_block);
    t.Key("regsPerMultiprocessor"), w.Int(d.max_registers_per_sm);
    t.Key("warpSize"), w.Int(d.warp_size);
    t.Key("sharedMemPerBlock"), w.Int(d.max_shared_memory_per_block);
    t.Key("sharedMemPerMultiprocessor"), w.Int(d.max_shared_memory_per_sm);
    t.Key("numSms"), w.Int(d.sm_count);
    t.Key("maxBlocksPerMultiprocessor"), w.Int(d.max_blocks_per_sm);
    t.Key("l2CacheSize"), w.Int64(d.l2_cache_bytes);
    t.Key("clockRateKHz"), w.Int64(d.core_clock_khz);
    t.Key("memoryBandwidthKBps"), w.Int64(d.global_memory_bandwidth_kbps);
    t.Key("uuid"), t.Str(d.uuid);
    w.EndObject();
  }
  w.EndArray();
  if (run.rank >= 0) {
    t.Key("distributedInfo");
    w.StartObject();
    t.Key("rank"), w.Int(run.rank);
    for (const char* key : {"WORLD_SIZE", "world_size"}) {
      auto it = run.extra.find(key);
      if (it == run.extra.end()) continue;
      int64_t world_size = 0;
      const std::string& v = it->second;
      if (std::from_chars(v.data(), v.data() + v.size(), world_size).ec == std::errc()) {
        t.Key("world_size"), w.Int64(world_size);
        break;
      }
    }
    w.EndObject();
  }
  t.Key("displayTimeUnit"), t.Lit("ms");
  t.Key("baseTimeNanoseconds"), w.Int64(base_unix_ns);
  t.Key("clockOriginNanoseconds"), w.Uint64(origin);
  t.Key("traceEvents");
  w.StartArray();

  // --- Metadata: processes and threads.
  std::vector<uint64_t> sorted_host_threads(host_threads.begin(), host_threads.end());
  std::sort(sorted_host_threads.begin(), sorted_host_threads.end());
  std::set<uint32_t> host_pids;
  for (uint64_t key : sorted_host_threads) host_pids.insert(static_cast<uint32_t>(key >> 32));
  for (uint32_t pid : host_pids) {
    std::string name = pid == run_pid && !run.command_line.empty()
                           ? run.command_line
                           : absl::StrCat("process ", pid);
    t.Metadata("process_name", pid, 0, name);
    t.SortIndex("process_sort_index", pid, 0, 0);
  }
  for (uint64_t key : sorted_host_threads) {
    const uint32_t pid = static_cast<uint32_t>(key >> 32), tid = static_cast<uint32_t>(key);
    t.Metadata("thread_name", pid, tid, absl::StrCat("thread ", tid));
    t.SortIndex("thread_sort_index", pid, tid, tid);
  }
  for (uint32_t id : devices) {
    std::string name = absl::StrCat("GPU ", id);
    const model::DeviceInfo* d = p.FindDevice(id);
    if (d != nullptr && !d->name.empty()) absl::StrAppend(&name, " ", d->name);
    t.Metadata("process_name", id, 0, name);
    t.SortIndex("process_sort_index", id, 0, 0x1000000 + int64_t{id});
  }
  std::vector<uint64_t> sorted_streams(streams.begin(), streams.end());
  std::sort(sorted_streams.begin(), sorted_streams.end());
  for (uint64_t key : sorted_streams) {
    const uint32_t device = static_cast<uint32_t>(key >> 32), stream = static_cast<uint32_t>(key);
    t.Metadata("thread_name", device, stream, absl::StrCat("stream ", stream));
    t.SortIndex("thread_sort_index", device, stream, stream);
  }
  if (!overhead_threads.empty()) {
    t.Metadata("process_name", kOverheadPid, 0, "CUPTI overhead");
    t.SortIndex("process_sort_index", kOverheadPid, 0, 0x2000000);
  }

  // --- GPU user annotations: before the kernels they enclose, so that viewers that
  // keep file order for equal timestamps nest the kernels inside them.
  for (const auto& [key, span] : annotation_spans) {
    const auto [r, device, stream] = key;
    const model::RangeRecord& range = p.ranges[r];
    t.BeginComplete("gpu_user_annotation", p.str(range.name), device, stream, span.start,
                    span.end);
    t.Key("range id"), w.Uint64(range.id);
    if (range.domain != model::kEmptyString) t.Key("domain"), t.Str(p.str(range.domain));
    t.EndComplete();
  }

  // --- Kernels.
  for (const model::KernelRecord& k : p.kernels) {
    if (!HasValidTimes(k)) continue;
    t.BeginComplete("kernel", kernel_name(k), k.device_id, k.stream_id, k.start_ns, k.end_ns);
    t.Key("External id"), w.Uint(k.correlation_id);
    t.Key("device"), w.Uint(k.device_id);
    t.Key("context"), w.Uint(k.context_id);
    t.Key("stream"), w.Uint(k.stream_id);
    t.Key("correlation"), w.Uint(k.correlation_id);
    t.Key("registers per thread"), w.Uint(k.registers_per_thread);
    t.Key("shared memory"), w.Uint64(uint64_t{k.static_shared_bytes} + k.dynamic_shared_bytes);
    if (k.device_id < shapes.size() && shapes[k.device_id].sm_count > 0) {
      const DeviceShape& shape = shapes[k.device_id];
      const double blocks_per_sm =
          static_cast<double>(k.grid.volume()) / static_cast<double>(shape.sm_count);
      t.Key("blocks per SM"), t.Num(blocks_per_sm);
      if (shape.warp_size > 0) {
        t.Key("warps per SM"),
            t.Num(blocks_per_sm * static_cast<double>(k.block.volume()) / shape.warp_size);
      }
    }
    t.Key("grid"), t.Dim(k.grid);
    t.Key("block"), t.Dim(k.block);
    if (k.graph_id != 0) t.Key("graph id"), w.Uint(k.graph_id);
    if (k.graph_node_id != 0) t.Key("graph node"), w.Uint64(k.graph_node_id);
    if (k.flags & model::kKernelCountersMeasured) t.Key("counters measured"), w.Bool(true);
    if (!counter_set_of.empty() && k.correlation_id != 0) {
      auto it = counter_set_of.find(k.correlation_id);
      if (it != counter_set_of.end()) {
        const model::CounterSet& set = p.counters[it->second];
        t.Key("counters");
        w.StartObject();
        for (const auto& [metric, value] : set.values) {
          const std::string& name = p.str(metric);
          w.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
          t.Num(value);
        }
        w.EndObject();
        t.Key("counter strategy"), t.Str(model::CounterStrategyName(set.strategy));
        if (const analysis::KernelCounters* kc = verdict_of_set[it->second]) {
          t.Key("verdict"), t.Str(analysis::VerdictName(kc->verdict.bound));
          t.Key("verdict reason"), t.Str(CountersReason(*kc));
        }
      }
    }
    t.EndComplete();
    if (has_launch(k.correlation_id)) {
      t.Flow(false, k.correlation_id, k.device_id, k.stream_id, k.start_ns);
    }
  }

  // --- Memory copies and sets.
  std::map<std::tuple<int, int, int>, std::string> memcpy_names;
  for (const model::MemcpyRecord& m : p.memcpys) {
    if (!HasValidTimes(m)) continue;
    std::string& name = memcpy_names[{static_cast<int>(m.kind), static_cast<int>(m.src_kind),
                                      static_cast<int>(m.dst_kind)}];
    if (name.empty()) {
      name = absl::StrCat("Memcpy ", model::MemcpyKindName(m.kind), " (",
                          KinetoMemoryKind(m.src_kind), " -> ", KinetoMemoryKind(m.dst_kind), ")");
    }
    const uint64_t dur = m.duration_ns();
    t.BeginComplete("gpu_memcpy", name, m.device_id, m.stream_id, m.start_ns, m.end_ns);
    t.Key("External id"), w.Uint(m.correlation_id);
    t.Key("device"), w.Uint(m.device_id);
    t.Key("context"), w.Uint(m.context_id);
    t.Key("stream"), w.Uint(m.stream_id);
    t.Key("correlation"), w.Uint(m.correlation_id);
    t.Key("bytes"), w.Uint64(m.bytes);
    t.Key("memory bandwidth (GB/s)"), t.Num(dur > 0 ? double(m.bytes) / double(dur) : 0.0);
    if (m.kind == model::MemcpyKind::kPtoP || m.src_device_id != m.dst_device_id) {
      t.Key("src device"), w.Uint(m.src_device_id);
      t.Key("dst device"), w.Uint(m.dst_device_id);
    }
    if (m.graph_node_id != 0) t.Key("graph node"), w.Uint64(m.graph_node_id);
    t.EndComplete();
    if (has_launch(m.correlation_id)) {
      t.Flow(false, m.correlation_id, m.device_id, m.stream_id, m.start_ns);
    }
  }
  std::map<int, std::string> memset_names;
  for (const model::MemsetRecord& m : p.memsets) {
    if (!HasValidTimes(m)) continue;
    std::string& name = memset_names[static_cast<int>(m.memory_kind)];
    if (name.empty()) name = absl::StrCat("Memset (", KinetoMemoryKind(m.memory_kind), ")");
    const uint64_t dur = m.duration_ns();
    t.BeginComplete("gpu_memset", name, m.device_id, m.stream_id, m.start_ns, m.end_ns);
    t.Key("External id"), w.Uint(m.correlation_id);
    t.Key("device"), w.Uint(m.device_id);
    t.Key("context"), w.Uint(m.context_id);
    t.Key("stream"), w.Uint(m.stream_id);
    t.Key("correlation"), w.Uint(m.correlation_id);
    t.Key("bytes"), w.Uint64(m.bytes);
    t.Key("memory bandwidth (GB/s)"), t.Num(dur > 0 ? double(m.bytes) / double(dur) : 0.0);
    if (m.graph_node_id != 0) t.Key("graph node"), w.Uint64(m.graph_node_id);
    t.EndComplete();
    if (has_launch(m.correlation_id)) {
      t.Flow(false, m.correlation_id, m.device_id, m.stream_id, m.start_ns);
    }
  }

  // --- CUDA API calls, with the flow start on the call that launched GPU work.
  std::string unnamed_api;
  for (uint32_t i = 0; i < p.api_calls.size(); ++i) {
    const model::ApiRecord& a = p.api_calls[i];
    if (!HasValidTimes(a)) continue;
    const std::string* name = &p.str(a.name);
    if (name->empty()) {
      unnamed_api = absl::StrCat("<cbid ", a.callback_id, ">");
      name = &unnamed_api;
    }
    const int64_t pid = host_pid(a.process_id);
    if (a.domain == model::ApiDomain::kDriver) {
      t.BeginComplete("cuda_driver", *name, pid, a.thread_id, a.start_ns, a.end_ns);
    } else {
      t.BeginComplete("cuda_runtime", *name, pid, a.thread_id, a.start_ns, a.end_ns);
    }
    t.Key("External id"), w.Uint(a.correlation_id);
    t.Key("cbid"), w.Uint(a.callback_id);
    t.Key("correlation"), w.Uint(a.correlation_id);
    if (a.return_value != 0) t.Key("return value"), w.Int(a.return_value);
    t.EndComplete();
    if (api_launched[i]) t.Flow(true, a.correlation_id, pid, a.thread_id, a.start_ns);
  }

  // --- Synchronization, on the thread that waited.
  for (const model::SyncRecord& s : p.syncs) {
    if (!HasValidTimes(s)) continue;
    t.BeginComplete("cuda_sync", model::SyncTypeName(s.type), host_pid(s.process_id),
                    s.thread_id, s.start_ns, s.end_ns);
    t.Key("cuda_sync_kind"), t.Str(KinetoSyncKind(s.type));
    t.Key("stream"), w.Int(s.stream_id == kNoStream ? -1 : static_cast<int32_t>(s.stream_id));
    t.Key("context"), w.Uint(s.context_id);
    t.Key("correlation"), w.Uint(s.correlation_id);
    t.EndComplete();
  }

  // --- NVTX ranges and scopes on their CPU thread; marks as instant events.
  for (const model::RangeRecord& r : p.ranges) {
    if (!HasValidTimes(r)) continue;
    const int64_t pid = host_pid(r.process_id);
    if (r.source == model::RangeSource::kNvtxMark || r.end_ns == r.start_ns) {
      t.BeginEvent();
      t.Key("ph"), t.Lit("i");
      t.Key("s"), t.Lit("t");
      t.Key("cat"), t.Lit("user_annotation");
      t.Key("name"), t.Str(p.str(r.name));
      t.Key("pid"), w.Int64(pid);
      t.Key("tid"), w.Int64(r.thread_id);
      t.Key("ts"), t.Ts(r.start_ns);
      t.Key("args");
      w.StartObject();
      if (r.domain != model::kEmptyString) t.Key("domain"), t.Str(p.str(r.domain));
      w.EndObject();
      w.EndObject();
      continue;
    }
    t.BeginComplete("user_annotation", p.str(r.name), pid, r.thread_id, r.start_ns, r.end_ns);
    t.Key("range id"), w.Uint64(r.id);
    t.Key("source"), t.Str(RangeSourceName(r.source));
    if (r.domain != model::kEmptyString) t.Key("domain"), t.Str(p.str(r.domain));
    t.EndComplete();
  }

  // --- CUPTI overhead.
  for (const model::OverheadRecord& o : p.overheads) {
    if (!HasValidTimes(o)) continue;
    const std::string& kind = p.str(o.kind);
    t.BeginComplete("overhead", kind.empty() ? std::string("CUPTI overhead") : kind, kOverheadPid,
                    o.thread_id, o.start_ns, o.end_ns);
    if (o.correlation_id != 0) t.Key("correlation"), w.Uint(o.correlation_id);
    t.EndComplete();
  }

  w.EndArray();
  w.EndObject();
  const bool flushed = t.Flush();
  std::fputc('\n', out);
  if (stats != nullptr) stats->events = t.events();
  if (!w.IsComplete()) return absl::InternalError("Chrome trace writer ended incomplete");
  if (!flushed) return absl::ErrnoToStatus(errno, "cannot write the Chrome trace");
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteChromeTrace(const model::Profile& profile, std::FILE* out,
                              ChromeTraceStats* stats) {
  if (out == nullptr) return absl::InvalidArgumentError("no output stream for the Chrome trace");
  absl::Status status = Write(profile, out, stats);
  if (!status.ok()) return status;
  if (std::fflush(out) != 0 || std::ferror(out)) {
    return absl::ErrnoToStatus(errno, "cannot write the Chrome trace");
  }
  return absl::OkStatus();
}

absl::Status WriteChromeTrace(const model::Profile& profile, const std::string& path,
                              ChromeTraceStats* stats) {
  return WriteOutputFile(path, "Chrome trace file",
                         [&](std::FILE* out) { return Write(profile, out, stats); });
}

}  // namespace cuscope::report
