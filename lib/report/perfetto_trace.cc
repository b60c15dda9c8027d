#include "lib/report/perfetto_trace.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "lib/report/output_file.h"
#include "lib/report/trace_output.h"
#include "report/proto/perfetto_trace.pb.h"

namespace cuscope::report {
namespace {

namespace pp = perfetto::protos;

// The categories of events that happen on a GPU stream (pid: device, tid: stream).
bool OnGpu(std::string_view category) {
  return category == "kernel" || category == "gpu_memcpy" || category == "gpu_memset" ||
         category == "gpu_user_annotation" || category == "cuda_sync";
}

// A slice (or an instant) of a track, held until the track is written.
struct Slice {
  uint64_t start = 0, end = 0;
  uint32_t name_iid = 0, category_iid = 0;  // category 0: none
  uint32_t flow_index = 0;                  // its flows: Track::flows from here
  uint8_t flows = 0, terminating_flows = 0;
  bool instant = false;
};

// One track with events, on its own packet sequence. Its slices are held and written
// together (WriteSlices), in the order Perfetto nests them (see there).
struct Track {
  uint64_t uuid = 0;
  uint32_t sequence = 0;
  absl::flat_hash_map<std::string, uint32_t> names;       // event names -> iid
  absl::flat_hash_map<const char*, uint32_t> categories;  // literals -> iid
  std::vector<std::string> name_list;                     // by iid - 1
  std::vector<const char*> category_list;                 // by iid - 1
  std::vector<Slice> slices;
  std::vector<uint64_t> flows;  // each slice's flow ids, then its terminating ones
};

// A complete or instant event waiting for the flows that follow it in the view.
struct Pending {
  Track* track = nullptr;
  Slice slice;
  std::vector<uint64_t> flows, terminating_flows;
};

class PerfettoWriter final : public TraceSink {
 public:
  // A single profile's trace: timestamps after the view's origin.
  PerfettoWriter(const TraceView& view, TraceOutput* out)
      : view_(&view), out_(out), clock_(view.header(), TraceHeader()) {}
  // A merged trace: BeginRank before each rank's events.
  explicit PerfettoWriter(TraceOutput* out) : out_(out), clock_(TraceHeader(), TraceHeader()) {}

  // The events that follow are `rank`'s, put on the common clock by `clock`; its tracks
  // are its own, their names prefixed "rank N: ".
  void BeginRank(const TraceView& view, int rank, RankClock clock) {
    Finish();  // the tracks of the rank before
    view_ = &view;
    rank_ = rank;
    clock_ = clock;
  }

  void Event(const TraceEvent& e) override {
    switch (e.phase) {
      case TracePhase::kMetadata:
        return;  // tracks are named from the profile when first used
      case TracePhase::kFlowStart:
      case TracePhase::kFlowEnd:
        if (pending_.track != nullptr && pending_.slice.start == e.start_ns) {
          (e.phase == TracePhase::kFlowStart ? pending_.flows : pending_.terminating_flows)
              .push_back(rank_ < 0 ? e.flow_id : RankFlowId(rank_, e.flow_id));
        }
        return;
      case TracePhase::kCounter:
        FlushPending();
        Counter(e);
        return;
      case TracePhase::kComplete:
      case TracePhase::kInstant:
        break;
    }
    FlushPending();
    Track& t = TrackFor(e);
    pending_.track = &t;
    Slice& s = pending_.slice;
    s.instant = e.phase == TracePhase::kInstant;
    s.start = e.start_ns;
    s.end = s.instant ? e.start_ns : std::max(e.start_ns, e.end_ns);
    s.name_iid = Intern(t, e.name);
    s.category_iid = InternCategory(t, e.category);
    if (std::string_view(e.category).rfind("gpu_mem", 0) == 0) Bandwidth(e);
  }

  // Writes the slices held (those of every track so far).
  void Finish() {
    FlushPending();
    for (const std::unique_ptr<Track>& t : tracks_) WriteSlices(*t);
  }
  uint64_t packets() const { return packets_; }
  uint64_t slices() const { return slices_; }

 private:
  uint64_t Ts(uint64_t ns) const { return clock_(ns); }

  // A track's name in this rank: "rank N: name" in a merged trace.
  std::string Named(std::string name) const {
    return rank_ < 0 ? name : absl::StrCat("rank ", rank_, ": ", name);
  }

  // The pid a process of this rank gets in the trace: its own, unless a rank before it
  // had a process of that pid (another host's), then one above Linux's pid range.
  int32_t PidFor(int64_t pid) {
    auto [it, fresh] = pids_.try_emplace({rank_, pid}, 0);
    if (!fresh) return it->second;
    int32_t p = static_cast<int32_t>(pid);
    if (!used_pids_.insert(p).second) {
      while (!used_pids_.insert(next_pid_).second) ++next_pid_;
      p = next_pid_;
    }
    it->second = p;
    return p;
  }

  // The iid of `name` on the track, interning it if new.
  static uint32_t Intern(Track& t, std::string_view name) {
    auto it = t.names.find(absl::string_view(name.data(), name.size()));
    if (it != t.names.end()) return it->second;
    t.name_list.emplace_back(name);
    t.names.emplace(t.name_list.back(), static_cast<uint32_t>(t.name_list.size()));
    return static_cast<uint32_t>(t.name_list.size());
  }
  // Kernels and runtime/driver calls, the bulk of a trace, go without a category:
  // their track and name say what they are (4 bytes a launch).
  static uint32_t InternCategory(Track& t, const char* category) {
    const std::string_view c(category);
    if (c == "kernel" || c == "cuda_runtime" || c == "cuda_driver") return 0;
    auto [it, inserted] =
        t.categories.try_emplace(category, static_cast<uint32_t>(t.categories.size() + 1));
    if (inserted) t.category_list.push_back(category);
    return it->second;
  }

  // The event waiting for its flows joins its track's slices.
  void FlushPending() {
    if (pending_.track == nullptr) return;
    Track& t = *pending_.track;
    Slice s = pending_.slice;
    s.flow_index = static_cast<uint32_t>(t.flows.size());
    const size_t flows = std::min<size_t>(pending_.flows.size(), UINT8_MAX);
    const size_t ends = std::min<size_t>(pending_.terminating_flows.size(), UINT8_MAX);
    s.flows = static_cast<uint8_t>(flows);
    s.terminating_flows = static_cast<uint8_t>(ends);
    t.flows.insert(t.flows.end(), pending_.flows.begin(), pending_.flows.begin() + flows);
    t.flows.insert(t.flows.end(), pending_.terminating_flows.begin(),
                   pending_.terminating_flows.begin() + ends);
    t.slices.push_back(s);
    pending_.track = nullptr;
    pending_.flows.clear();
    pending_.terminating_flows.clear();
  }

  // A track's slices, in the order Perfetto nests them. It sorts packets by timestamp,
  // keeping the file's order at equal ones, and an END closes the innermost open
  // slice; so at equal starts the enclosing slice (the later end) begins first, the
  // slices that ended by a BEGIN's time end before it (innermost first: any END
  // closes the innermost), and a slice of no duration ends right after it begins.
  void WriteSlices(Track& t) {
    if (t.slices.empty()) return;
    auto before = [](const Slice& a, const Slice& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    };
    // Most tracks come in order (a stream's kernels, a thread's calls): no sort's buffer.
    if (!std::is_sorted(t.slices.begin(), t.slices.end(), before)) {
      std::stable_sort(t.slices.begin(), t.slices.end(), before);
    }
    std::vector<bool> name_sent(t.name_list.size() + 1), category_sent(t.category_list.size() + 1);
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> open;  // their ends
    for (const Slice& s : t.slices) {
      for (; !open.empty() && open.top() <= s.start; open.pop()) End(t, open.top());
      Begin(t, s, name_sent, category_sent);
      if (s.instant) continue;
      ++slices_;
      if (s.end == s.start) {
        End(t, s.end);
      } else {
        open.push(s.end);
      }
    }
    for (; !open.empty(); open.pop()) End(t, open.top());
    t.slices = {};
    t.flows = {};
  }

  void Begin(const Track& t, const Slice& s, std::vector<bool>& name_sent,
             std::vector<bool>& category_sent) {
    packet_.Clear();
    packet_.set_timestamp(Ts(s.start));
    packet_.set_trusted_packet_sequence_id(t.sequence);
    pp::TrackEvent* te = packet_.mutable_track_event();
    te->set_type(s.instant ? pp::TrackEvent::TYPE_INSTANT : pp::TrackEvent::TYPE_SLICE_BEGIN);
    te->set_name_iid(s.name_iid);
    if (s.category_iid != 0) te->add_category_iids(s.category_iid);
    const uint64_t* flow = t.flows.data() + s.flow_index;
    for (int i = 0; i < s.flows; ++i) te->add_flow_ids_old(*flow++);
    for (int i = 0; i < s.terminating_flows; ++i) te->add_terminating_flow_ids_old(*flow++);
    if (!name_sent[s.name_iid]) {  // interned with the first packet that uses it
      name_sent[s.name_iid] = true;
      pp::EventName* n = packet_.mutable_interned_data()->add_event_names();
      n->set_iid(s.name_iid);
      n->set_name(t.name_list[s.name_iid - 1]);
    }
    if (s.category_iid != 0 && !category_sent[s.category_iid]) {
      category_sent[s.category_iid] = true;
      pp::EventCategory* c = packet_.mutable_interned_data()->add_event_categories();
      c->set_iid(s.category_iid);
      c->set_name(t.category_list[s.category_iid - 1]);
    }
    Emit();
  }

  void End(const Track& t, uint64_t ns) {
    packet_.Clear();
    packet_.set_timestamp(Ts(ns));
    packet_.set_trusted_packet_sequence_id(t.sequence);
    packet_.mutable_track_event()->set_type(pp::TrackEvent::TYPE_SLICE_END);
    Emit();
  }

  // A counter per GPU: the bandwidth of its copies and sets (GB/s) while they run.
  void Bandwidth(const TraceEvent& e) {
    double gbps = 0;
    for (const TraceArg& a : e.args) {
      if (a.key == "memory bandwidth (GB/s)") gbps = a.d;
    }
    Track& c = CounterTrack(e.pid);
    for (auto [ts, value] : {std::pair{e.start_ns, gbps}, std::pair{e.end_ns, 0.0}}) {
      packet_.Clear();
      packet_.set_timestamp(Ts(ts));
      packet_.set_trusted_packet_sequence_id(c.sequence);
      pp::TrackEvent* te = packet_.mutable_track_event();
      te->set_type(pp::TrackEvent::TYPE_COUNTER);
      te->set_double_counter_value(value);
      Emit();
    }
  }

  // A counter's value (a GPU metric sample's rate) on its series' track under the GPU.
  void Counter(const TraceEvent& e) {
    Track& c = SeriesTrack(e.pid, e.name);
    double value = 0;
    for (const TraceArg& a : e.args) {
      if (a.key == "value") value = a.d;
    }
    packet_.Clear();
    packet_.set_timestamp(Ts(e.start_ns));
    packet_.set_trusted_packet_sequence_id(c.sequence);
    pp::TrackEvent* te = packet_.mutable_track_event();
    te->set_type(pp::TrackEvent::TYPE_COUNTER);
    te->set_double_counter_value(value);
    Emit();
  }

  // Serializes packet_ as one `packet` field of the Trace message.
  void Emit() {
    packet_.SerializeToString(&bytes_);
    char head[11];
    size_t n = 0;
    head[n++] = 0x0a;  // field 1, length-delimited
    for (uint64_t v = bytes_.size();; v >>= 7) {
      if (v < 0x80) {
        head[n++] = static_cast<char>(v);
        break;
      }
      head[n++] = static_cast<char>((v & 0x7f) | 0x80);
    }
    out_->Write(head, n);
    out_->Write(bytes_);
    ++packets_;
  }

  // A new track: its descriptor, first packet of its own sequence, with the
  // defaults that make it the track of every later event on the sequence.
  Track& NewTrack(pp::TrackDescriptor descriptor) {
    tracks_.push_back(std::make_unique<Track>());
    Track& t = *tracks_.back();
    t.uuid = ++last_uuid_;
    t.sequence = static_cast<uint32_t>(tracks_.size()) + 1;  // 1: parent tracks
    descriptor.set_uuid(t.uuid);
    packet_.Clear();
    packet_.set_trusted_packet_sequence_id(t.sequence);
    packet_.set_first_packet_on_sequence(true);
    packet_.set_sequence_flags(pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
    packet_.mutable_trace_packet_defaults()->mutable_track_event_defaults()->set_track_uuid(t.uuid);
    *packet_.mutable_track_descriptor() = std::move(descriptor);
    Emit();
    return t;
  }

  // A track that only groups others (a process, a GPU), on sequence 1.
  uint64_t ParentTrack(int kind, int64_t id, const std::string& name, int64_t pid) {
    auto [it, inserted] = parents_.try_emplace({rank_, kind, id}, 0);
    if (!inserted) return it->second;
    it->second = ++last_uuid_;
    packet_.Clear();
    packet_.set_trusted_packet_sequence_id(1);
    if (!parent_sequence_started_) {
      packet_.set_first_packet_on_sequence(true);
      packet_.set_sequence_flags(pp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
      parent_sequence_started_ = true;
    }
    pp::TrackDescriptor* d = packet_.mutable_track_descriptor();
    d->set_uuid(it->second);
    d->set_name(Named(name));
    if (pid > 0) {
      d->mutable_process()->set_pid(PidFor(pid));
      d->mutable_process()->set_process_name(Named(name));
    }
    Emit();
    return it->second;
  }

  uint64_t GpuTrack(int64_t device) {
    std::string name = absl::StrCat("GPU ", device);
    const model::DeviceInfo* d = view_->profile().FindDevice(static_cast<uint32_t>(device));
    if (d != nullptr && !d->name.empty()) absl::StrAppend(&name, " ", d->name);
    return ParentTrack(0, device, name, 0);
  }

  Track& TrackFor(const TraceEvent& e) {
    const bool gpu = OnGpu(e.category);
    const int kind = gpu ? 0 : e.pid == kTraceOverheadPid ? 2 : e.pid == kTraceOwnPid ? 3 : 1;
    auto [it, inserted] = event_tracks_.try_emplace({rank_, kind, e.pid, e.tid}, nullptr);
    if (!inserted) return *it->second;
    pp::TrackDescriptor d;
    if (gpu) {
      d.set_parent_uuid(GpuTrack(e.pid));
      d.set_name(absl::StrCat("stream ", e.tid));
    } else if (kind >= 2) {
      d.set_parent_uuid(ParentTrack(kind, 0, kind == 2 ? "CUPTI overhead" : "cuscope", 0));
      d.set_name(absl::StrCat("thread ", e.tid));
    } else {
      const model::RunInfo& run = view_->profile().run;
      const std::string process = e.pid == run.pid && !run.command_line.empty()
                                      ? run.command_line
                                      : absl::StrCat("process ", e.pid);
      d.set_parent_uuid(ParentTrack(1, e.pid, process, e.pid));
      d.mutable_thread()->set_pid(PidFor(e.pid));
      d.mutable_thread()->set_tid(static_cast<int32_t>(e.tid));
      d.mutable_thread()->set_thread_name(absl::StrCat("thread ", e.tid));
    }
    it->second = &NewTrack(std::move(d));
    return *it->second;
  }

  Track& CounterTrack(int64_t device) {
    auto [it, inserted] = counter_tracks_.try_emplace({rank_, device}, nullptr);
    if (!inserted) return *it->second;
    pp::TrackDescriptor d;
    d.set_parent_uuid(GpuTrack(device));
    d.set_name(absl::StrCat("GPU ", device, " copy bandwidth (GB/s)"));
    d.mutable_counter()->set_unit_multiplier(1);
    it->second = &NewTrack(std::move(d));
    return *it->second;
  }

  // A counter series of a GPU ("GPU 0 SM active %", "rank 1: GPU 0 SM active %" in a
  // merged trace), a track of its own.
  Track& SeriesTrack(int64_t device, std::string_view series) {
    auto [it, inserted] = series_tracks_.try_emplace({rank_, device, std::string(series)}, nullptr);
    if (!inserted) return *it->second;
    pp::TrackDescriptor d;
    d.set_parent_uuid(GpuTrack(device));
    d.set_name(
        Named(absl::StrCat("GPU ", device, " ", absl::string_view(series.data(), series.size()))));
    d.mutable_counter()->set_unit_multiplier(1);
    it->second = &NewTrack(std::move(d));
    return *it->second;
  }

  const TraceView* view_ = nullptr;
  TraceOutput* out_;
  int rank_ = -1;  // -1: a single profile's trace
  RankClock clock_;
  pp::TracePacket packet_;
  std::string bytes_;
  Pending pending_;
  std::vector<std::unique_ptr<Track>> tracks_;
  // Keys begin with the rank (-1 in a single profile's trace).
  std::map<std::tuple<int, int, int64_t, int64_t>, Track*> event_tracks_;
  std::map<std::pair<int, int64_t>, Track*> counter_tracks_;
  std::map<std::tuple<int, int64_t, std::string>, Track*> series_tracks_;
  std::map<std::tuple<int, int, int64_t>, uint64_t> parents_;
  std::map<std::pair<int, int64_t>, int32_t> pids_;  // (rank, pid) -> the trace's pid
  std::set<int32_t> used_pids_;
  int32_t next_pid_ = 1 << 22;  // above Linux's PID_MAX_LIMIT
  bool parent_sequence_started_ = false;
  uint64_t last_uuid_ = 0;
  uint64_t packets_ = 0, slices_ = 0;
};

absl::Status Finish(const PerfettoWriter& writer, TraceOutput& output, PerfettoTraceStats* stats) {
  if (stats != nullptr) {
    stats->packets = writer.packets();
    stats->slices = writer.slices();
    stats->bytes = output.bytes_in();
  }
  return output.Finish();
}

}  // namespace

absl::Status WritePerfettoTrace(const TraceView& view, const std::string& path,
                                PerfettoTraceStats* stats) {
  return WriteOutputFile(path, "Perfetto trace file", [&](std::FILE* out) {
    TraceOutput output(out, IsGzipPath(path));
    PerfettoWriter writer(view, &output);
    view.Events(writer);
    writer.Finish();
    return Finish(writer, output, stats);
  });
}

absl::Status WriteMergedPerfettoTrace(std::vector<RankTrace> ranks, const std::string& path,
                                      PerfettoTraceStats* stats) {
  if (absl::Status st = SortRanks(ranks); !st.ok()) return st;
  const TraceHeader merged = MergedHeader(ranks);
  return WriteOutputFile(path, "Perfetto trace file", [&](std::FILE* out) {
    TraceOutput output(out, IsGzipPath(path));
    PerfettoWriter writer(&output);
    for (const RankTrace& r : ranks) {
      writer.BeginRank(*r.view, r.rank, RankClock(r.view->header(), merged));
      r.view->Events(writer);
    }
    writer.Finish();
    return Finish(writer, output, stats);
  });
}

}  // namespace cuscope::report
