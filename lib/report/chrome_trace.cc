#include "lib/report/chrome_trace.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/report/output_file.h"
#include "lib/report/trace_output.h"
#include "rapidjson/writer.h"

namespace cuscope::report {
namespace {

// A buffered FILE* output stream for rapidjson::Writer. The writer reserves room
// before each value (PutReserve) and then writes characters with PutUnsafe; the
// overloads below (found by argument-dependent lookup) make those writes plain
// stores, without FileWriteStream's bounds check per character.
class TraceStream {
 public:
  using Ch = char;
  explicit TraceStream(TraceOutput* out) : out_(out), buffer_(kBufferSize) {
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
    if (n > 0) out_->Write(buffer_.data(), n);
    cur_ = buffer_.data();
  }

  // Unused by the writer, required by rapidjson's stream concept.
  char Peek() const { return '\0'; }
  char Take() { return '\0'; }
  size_t Tell() const { return 0; }
  char* PutBegin() { return nullptr; }
  size_t PutEnd(char*) { return 0; }

 private:
  static constexpr size_t kBufferSize = 1 << 18;
  TraceOutput* out_;
  std::vector<char> buffer_;
  char* cur_ = nullptr;
  char* end_ = nullptr;
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
    const uint64_t special =
        ((w - kOnes * 0x20) & ~w) | ((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash);
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

// Serializes trace events through a rapidjson::Writer, counting them.
class TraceWriter final : public TraceSink {
 public:
  TraceWriter(TraceOutput* out, uint64_t origin_ns)
      : stream_(out), w_(stream_), origin_(origin_ns) {
    w_.SetMaxDecimalPlaces(6);
  }

  Writer& w() { return w_; }
  uint64_t events() const { return events_; }

  void Key(std::string_view k) { w_.PlainKey(k.data(), k.size()); }
  void Str(std::string_view s) { w_.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
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

  void Dim(const model::Dim3& d) {
    w_.StartArray();
    w_.Uint(d.x), w_.Uint(d.y), w_.Uint(d.z);
    w_.EndArray();
  }

  void Event(const TraceEvent& e) override {
    ++events_;
    w_.StartObject();
    switch (e.phase) {
      case TracePhase::kComplete:
        w_.MembersThenKey(Prefix('X', e.category));  // "ph":"X","cat":cat,"name"
        Str(e.name);
        Key("pid"), w_.Int64(e.pid);
        Key("tid"), w_.Int64(e.tid);
        Key("ts"), Ts(e.start_ns);
        Key("dur"), Micros(e.end_ns - e.start_ns);
        break;
      case TracePhase::kInstant:
        Key("ph"), Str("i");
        Key("s"), Str("t");
        Key("cat"), Str(e.category);
        Key("name"), Str(e.name);
        Key("pid"), w_.Int64(e.pid);
        Key("tid"), w_.Int64(e.tid);
        Key("ts"), Ts(e.start_ns);
        break;
      case TracePhase::kFlowStart:
      case TracePhase::kFlowEnd:
        Flow(e);
        return;
      case TracePhase::kCounter:
        w_.MembersThenKey(Prefix('C', e.category));  // "ph":"C","cat":cat,"name"
        Str(e.name);
        Key("pid"), w_.Int64(e.pid);
        Key("tid"), w_.Int64(e.tid);
        Key("ts"), Ts(e.start_ns);
        break;
      case TracePhase::kMetadata:
        Key("name"), Str(e.category);
        Key("ph"), Str("M");
        Key("ts"), Micros(0);
        Key("pid"), w_.Int64(e.pid);
        Key("tid"), w_.Int64(e.tid);
        break;
    }
    Key("args");
    Args(e.args);
    w_.EndObject();
  }

  void Flush() { stream_.Flush(); }

 private:
  // Kineto's async CPU-to-GPU flow ("ac2g"): 's' on the launch, 'f' on the GPU op.
  void Flow(const TraceEvent& e) {
    static const std::string kStart = R"("ph":"s","cat":"ac2g","name":"ac2g","bp":"e","id")";
    static const std::string kFinish = R"("ph":"f","cat":"ac2g","name":"ac2g","bp":"e","id")";
    w_.MembersThenKey(e.phase == TracePhase::kFlowStart ? kStart : kFinish);
    w_.Uint64(e.flow_id);
    Key("pid"), w_.Int64(e.pid);
    Key("tid"), w_.Int64(e.tid);
    Key("ts"), Ts(e.start_ns);
    w_.EndObject();
  }

  void Args(const std::vector<TraceArg>& args) {
    w_.StartObject();
    for (const TraceArg& a : args) {
      Key(a.key);
      switch (a.kind) {
        case TraceArg::Kind::kInt:
          w_.Int64(a.i);
          break;
        case TraceArg::Kind::kUint:
          w_.Uint64(a.u);
          break;
        case TraceArg::Kind::kDouble:
          Num(a.d);
          break;
        case TraceArg::Kind::kBool:
          w_.Bool(a.b);
          break;
        case TraceArg::Kind::kString:
          Str(a.s);
          break;
        case TraceArg::Kind::kDim:
          Dim(a.dim);
          break;
        case TraceArg::Kind::kMetrics:
          w_.StartObject();
          for (const auto& [name, value] : *a.metrics) {
            w_.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
            Num(value);
          }
          w_.EndObject();
          break;
      }
    }
    w_.EndObject();
  }

  // `"ph":"<ph>","cat":"<cat>","name"`, built once per phase and category.
  const std::string& Prefix(char ph, const char* cat) {
    for (const auto& [p, c, prefix] : prefixes_) {
      if (p == ph && c == cat) return prefix;
    }
    prefixes_.emplace_back(
        ph, cat,
        absl::StrCat(R"("ph":")", absl::string_view(&ph, 1), R"(","cat":")", cat, R"(","name")"));
    return std::get<2>(prefixes_.back());
  }

  std::vector<std::tuple<char, const char*, std::string>> prefixes_;
  TraceStream stream_;
  Writer w_;
  uint64_t origin_;
  uint64_t events_ = 0;
};

void WriteDevice(TraceWriter& t, const model::DeviceInfo& d) {
  Writer& w = t.w();
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

// The object's members up to the open "traceEvents" array.
void WriteHeader(TraceWriter& t, const std::vector<const model::DeviceInfo*>& devices,
                 const TraceHeader& h) {
  Writer& w = t.w();
  w.StartObject();
  t.Key("schemaVersion"), w.Int(1);
  t.Key("deviceProperties");
  w.StartArray();
  for (const model::DeviceInfo* d : devices) WriteDevice(t, *d);
  w.EndArray();
  t.Key("distributedInfo");
  w.StartObject();
  if (!h.backend.empty()) t.Key("backend"), t.Str(h.backend);
  t.Key("rank"), w.Int(h.rank);
  if (h.local_rank) t.Key("local_rank"), w.Int64(*h.local_rank);
  if (h.world_size) t.Key("world_size"), w.Int64(*h.world_size);
  w.EndObject();
  t.Key("displayTimeUnit"), t.Str("ms");
  t.Key("baseTimeNanoseconds"), w.Int64(h.base_unix_ns);
  t.Key("clockOriginNanoseconds"), w.Uint64(h.origin_ns);
  t.Key("traceEvents");
  w.StartArray();
}

// Closes the event array and the object, then the output.
absl::Status Finish(TraceWriter& t, TraceOutput& output, ChromeTraceStats* stats) {
  Writer& w = t.w();
  w.EndArray();
  w.EndObject();
  t.Flush();
  output.Write("\n", 1);
  if (stats != nullptr) stats->events = t.events();
  if (!w.IsComplete()) return absl::InternalError("Chrome trace writer ended incomplete");
  return output.Finish();
}

absl::Status Write(const TraceView& view, std::FILE* out, bool gzip, ChromeTraceStats* stats) {
  TraceOutput output(out, gzip);
  TraceWriter t(&output, view.header().origin_ns);
  std::vector<const model::DeviceInfo*> devices;
  for (const model::DeviceInfo& d : view.profile().devices) devices.push_back(&d);
  WriteHeader(t, devices, view.header());
  view.Events(t);
  return Finish(t, output, stats);
}

// One rank's events on the merged trace: pids moved into the rank's block, process
// names prefixed "rank N: ", processes sorted by rank, flow ids made distinct per
// rank, and timestamps moved from the rank's origin to the common one.
class RankSink final : public TraceSink {
 public:
  RankSink(TraceWriter& out, int rank, RankClock clock) : out_(out), rank_(rank), clock_(clock) {}

  void Event(const TraceEvent& e) override {
    e_ = e;
    e_.pid = e.pid + int64_t{rank_} * kRankPidStride;
    if (e.phase == TracePhase::kMetadata && !e.args.empty()) {
      if (std::strcmp(e.category, "process_name") == 0) {
        name_ = absl::StrCat("rank ", rank_, ": ",
                             absl::string_view(e.args[0].s.data(), e.args[0].s.size()));
        e_.args[0].s = name_;
      } else if (std::strcmp(e.category, "process_sort_index") == 0) {
        e_.args[0].i += int64_t{rank_} * kRankSortStride;
      }
    } else if (e.phase != TracePhase::kMetadata) {
      e_.start_ns = clock_(e.start_ns);
      e_.end_ns = e_.start_ns + (e.end_ns - e.start_ns);
      e_.flow_id = RankFlowId(rank_, e.flow_id);
    }
    out_.Event(e_);
  }

 private:
  static constexpr int64_t kRankSortStride = 0x4000000;  // above the overhead's 0x2000000
  TraceWriter& out_;
  const int rank_;
  const RankClock clock_;
  TraceEvent e_;
  std::string name_;
};

absl::Status WriteMerged(std::vector<RankTrace> ranks, std::FILE* out, bool gzip,
                         ChromeTraceStats* stats) {
  if (absl::Status st = SortRanks(ranks); !st.ok()) return st;
  const TraceHeader h = MergedHeader(ranks);
  std::vector<const model::DeviceInfo*> devices;  // every rank's, once
  std::set<std::pair<uint32_t, std::string>> seen;
  for (const RankTrace& r : ranks) {
    for (const model::DeviceInfo& d : r.view->profile().devices) {
      if (seen.insert({d.id, d.uuid}).second) devices.push_back(&d);
    }
  }
  TraceOutput output(out, gzip);
  TraceWriter t(&output, /*origin_ns=*/0);
  WriteHeader(t, devices, h);
  for (const RankTrace& r : ranks) {
    RankSink sink(t, r.rank, RankClock(r.view->header(), h));
    r.view->Events(sink);
  }
  return Finish(t, output, stats);
}

std::vector<analysis::KernelCounters> CountersOf(const model::Profile& profile) {
  if (profile.counters.empty()) return {};
  return analysis::AnalyzeCounters(profile);
}

}  // namespace

absl::Status WriteChromeTrace(const TraceView& view, std::FILE* out, ChromeTraceStats* stats) {
  if (out == nullptr) return absl::InvalidArgumentError("no output stream for the Chrome trace");
  absl::Status status = Write(view, out, /*gzip=*/false, stats);
  if (!status.ok()) return status;
  if (std::fflush(out) != 0 || std::ferror(out)) {
    return absl::ErrnoToStatus(errno, "cannot write the Chrome trace");
  }
  return absl::OkStatus();
}

absl::Status WriteChromeTrace(const TraceView& view, const std::string& path,
                              ChromeTraceStats* stats) {
  return WriteOutputFile(path, "Chrome trace file",
                         [&](std::FILE* out) { return Write(view, out, IsGzipPath(path), stats); });
}

absl::Status WriteMergedChromeTrace(const std::vector<RankTrace>& ranks, std::FILE* out,
                                    ChromeTraceStats* stats) {
  if (out == nullptr) return absl::InvalidArgumentError("no output stream for the Chrome trace");
  absl::Status status = WriteMerged(ranks, out, /*gzip=*/false, stats);
  if (!status.ok()) return status;
  if (std::fflush(out) != 0 || std::ferror(out)) {
    return absl::ErrnoToStatus(errno, "cannot write the Chrome trace");
  }
  return absl::OkStatus();
}

absl::Status WriteMergedChromeTrace(const std::vector<RankTrace>& ranks, const std::string& path,
                                    ChromeTraceStats* stats) {
  return WriteOutputFile(path, "Chrome trace file", [&](std::FILE* out) {
    return WriteMerged(ranks, out, IsGzipPath(path), stats);
  });
}

absl::Status WriteChromeTrace(const model::Profile& profile, std::FILE* out,
                              ChromeTraceStats* stats) {
  const std::vector<analysis::KernelCounters> counters = CountersOf(profile);
  return WriteChromeTrace(TraceView(profile, counters), out, stats);
}

absl::Status WriteChromeTrace(const model::Profile& profile, const std::string& path,
                              ChromeTraceStats* stats) {
  const std::vector<analysis::KernelCounters> counters = CountersOf(profile);
  return WriteChromeTrace(TraceView(profile, counters), path, stats);
}

}  // namespace cuscope::report
