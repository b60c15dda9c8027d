// The .pftrace of a recorded profile, read back with the generated messages of
// lib/report/proto/perfetto_trace.proto: a valid Trace whose tracks, slices, flows,
// interned names and counters say what the Chrome trace of the same view says.
#include "lib/report/perfetto_trace.h"

#include <zlib.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gtest/gtest.h"
#include "lib/report/chrome_trace.h"
#include "lib/store/reader.h"
#include "report/proto/perfetto_trace.pb.h"
#include "tests/test_util.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

namespace pp = perfetto::protos;
using testing_util::ReadFile;
using testing_util::TempPath;

// The Chrome trace's counts of the same view: complete and instant events, flows.
struct Counts : TraceSink {
  void Event(const TraceEvent& e) override {
    complete += e.phase == TracePhase::kComplete;
    instant += e.phase == TracePhase::kInstant;
    flows += e.phase == TracePhase::kFlowStart;
    copies += e.phase == TracePhase::kComplete && std::string_view(e.category) == "gpu_memset";
  }
  uint64_t complete = 0, instant = 0, flows = 0, copies = 0;
};

TEST(PerfettoTraceTest, RecordedProfileReadsBack) {
  absl::StatusOr<model::Profile> profile =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-torch-loop.sqlite");
  ASSERT_TRUE(profile.ok());
  const TraceView view(*profile, {});
  Counts counts;
  view.Events(counts);
  ASSERT_GT(counts.flows, 0u);
  ASSERT_GT(counts.copies, 0u);

  const std::string path = TempPath("perfetto_test.pftrace");
  PerfettoTraceStats stats;
  ASSERT_TRUE(WritePerfettoTrace(view, path, &stats).ok());
  const std::string bytes = ReadFile(path);
  EXPECT_EQ(stats.bytes, bytes.size());
  pp::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(bytes));
  EXPECT_EQ(static_cast<uint64_t>(trace.packet_size()), stats.packets);

  std::map<uint32_t, uint64_t> sequence_track;   // from the sequence's defaults
  std::map<uint32_t, std::set<uint64_t>> names;  // interned name iids per sequence
  std::set<uint64_t> uuids, parents;
  std::map<uint32_t, int> open;  // open slices per sequence
  uint64_t begins = 0, instants = 0, counters = 0;
  std::set<uint64_t> flow_starts, flow_ends;
  for (const pp::TracePacket& p : trace.packet()) {
    const uint32_t seq = p.trusted_packet_sequence_id();
    ASSERT_NE(seq, 0u);
    if (p.has_track_descriptor()) {
      const pp::TrackDescriptor& d = p.track_descriptor();
      EXPECT_TRUE(uuids.insert(d.uuid()).second) << "uuid " << d.uuid() << " twice";
      if (d.has_parent_uuid()) {
        EXPECT_EQ(uuids.count(d.parent_uuid()), 1u);
      }
      if (p.has_trace_packet_defaults()) {
        EXPECT_TRUE(p.first_packet_on_sequence());
        sequence_track[seq] = p.trace_packet_defaults().track_event_defaults().track_uuid();
      }
      continue;
    }
    ASSERT_TRUE(p.has_track_event());
    ASSERT_EQ(sequence_track.count(seq), 1u) << "an event before its track's descriptor";
    for (const pp::EventName& n : p.interned_data().event_names()) names[seq].insert(n.iid());
    const pp::TrackEvent& te = p.track_event();
    switch (te.type()) {
      case pp::TrackEvent::TYPE_SLICE_BEGIN:
        ++begins;
        ++open[seq];
        EXPECT_EQ(names[seq].count(te.name_iid()), 1u) << "a name not interned on its sequence";
        break;
      case pp::TrackEvent::TYPE_SLICE_END:
        EXPECT_GT(open[seq]--, 0) << "an end without a begin";
        break;
      case pp::TrackEvent::TYPE_INSTANT:
        ++instants;
        break;
      case pp::TrackEvent::TYPE_COUNTER:
        ++counters;
        EXPECT_TRUE(te.has_double_counter_value());
        break;
      default:
        ADD_FAILURE() << "event type " << te.type();
    }
    for (uint64_t f : te.flow_ids_old()) flow_starts.insert(f);
    for (uint64_t f : te.terminating_flow_ids_old()) flow_ends.insert(f);
  }
  for (const auto& [seq, n] : open) EXPECT_EQ(n, 0) << "sequence " << seq;
  EXPECT_EQ(begins, counts.complete);
  EXPECT_EQ(stats.slices, counts.complete);
  EXPECT_EQ(instants, counts.instant);
  EXPECT_EQ(flow_starts.size(), counts.flows);
  EXPECT_EQ(flow_starts, flow_ends);
  EXPECT_GE(counters, 2 * counts.copies);  // each set: its bandwidth, then 0
}

TEST(PerfettoTraceTest, GzipNameGivesGzip) {
  absl::StatusOr<model::Profile> profile =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-timeline-demo.sqlite");
  ASSERT_TRUE(profile.ok());
  const TraceView view(*profile, {});
  const std::string plain = TempPath("perfetto_test2.pftrace");
  const std::string gz = TempPath("perfetto_test2.pftrace.gz");
  ASSERT_TRUE(WritePerfettoTrace(view, plain).ok());
  ASSERT_TRUE(WritePerfettoTrace(view, gz).ok());
  gzFile f = gzopen(gz.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  EXPECT_EQ(out, ReadFile(plain));
  const std::string raw = ReadFile(gz);
  ASSERT_GE(raw.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(raw[0]), 0x1f);  // gzip's magic
  EXPECT_EQ(static_cast<unsigned char>(raw[1]), 0x8b);
}

// Slices as (name, start, end), timestamps after the trace's origin.
using Spans = std::multiset<std::tuple<std::string, uint64_t, uint64_t>>;

// The complete events of the view, as the Chrome trace has them, by track.
struct CompleteSpans : TraceSink {
  explicit CompleteSpans(uint64_t origin) : origin(origin) {}
  void Event(const TraceEvent& e) override {
    if (e.phase != TracePhase::kComplete) return;
    const std::string_view c(e.category);
    const bool gpu = c == "kernel" || c.rfind("gpu_", 0) == 0 || c == "cuda_sync";
    tracks[{gpu, e.pid, e.tid}].emplace(std::string(e.name), e.start_ns - origin,
                                        e.end_ns - origin);
  }
  // Every span but those that cross another of their track (begin inside it and end
  // after it: BEGIN/END pairs cannot say that) and those with the name and start of one.
  Spans Nested() const {
    Spans nested;
    std::set<std::pair<std::string, uint64_t>> crossing;
    for (const auto& [track, spans] : tracks) {
      std::vector<std::tuple<uint64_t, uint64_t, std::string>> sorted;
      for (const auto& [name, start, end] : spans) sorted.emplace_back(start, end, name);
      std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b)
                                                : std::get<1>(a) > std::get<1>(b);
      });
      std::vector<size_t> open;
      for (size_t i = 0; i < sorted.size(); ++i) {
        const auto& [start, end, name] = sorted[i];
        while (!open.empty() && std::get<1>(sorted[open.back()]) <= start) open.pop_back();
        for (size_t j : open) {
          if (std::get<1>(sorted[j]) >= end) continue;
          crossing.emplace(name, start);
          crossing.emplace(std::get<2>(sorted[j]), std::get<0>(sorted[j]));
        }
        open.push_back(i);
      }
      nested.insert(spans.begin(), spans.end());
    }
    for (auto it = nested.begin(); it != nested.end();) {
      it = crossing.count({std::get<0>(*it), std::get<1>(*it)}) ? nested.erase(it) : ++it;
    }
    excluded = crossing;
    return nested;
  }
  uint64_t origin;
  std::map<std::tuple<bool, int64_t, int64_t>, Spans> tracks;
  mutable std::set<std::pair<std::string, uint64_t>> excluded;
};

// The slices Perfetto's trace processor makes of a .pftrace: per sequence, the packets
// sorted by timestamp (keeping the file's order at equal ones); a BEGIN opens a slice,
// an END closes the innermost open one.
Spans PerfettoSlices(const std::string& bytes) {
  pp::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes));
  std::map<uint32_t, std::vector<const pp::TracePacket*>> by_sequence;
  std::map<std::pair<uint32_t, uint64_t>, std::string> names;
  for (const pp::TracePacket& p : trace.packet()) {
    if (!p.has_track_event()) continue;
    by_sequence[p.trusted_packet_sequence_id()].push_back(&p);
    for (const pp::EventName& n : p.interned_data().event_names()) {
      names[{p.trusted_packet_sequence_id(), n.iid()}] = n.name();
    }
  }
  Spans spans;
  for (auto& [seq, packets] : by_sequence) {
    std::stable_sort(packets.begin(), packets.end(),
                     [](const pp::TracePacket* a, const pp::TracePacket* b) {
                       return a->timestamp() < b->timestamp();
                     });
    std::vector<std::pair<std::string, uint64_t>> open;
    for (const pp::TracePacket* p : packets) {
      if (p->track_event().type() == pp::TrackEvent::TYPE_SLICE_BEGIN) {
        open.emplace_back(names[{seq, p->track_event().name_iid()}], p->timestamp());
      } else if (p->track_event().type() == pp::TrackEvent::TYPE_SLICE_END) {
        EXPECT_FALSE(open.empty()) << "an end without a begin on sequence " << seq;
        if (open.empty()) continue;
        spans.emplace(open.back().first, open.back().second, p->timestamp());
        open.pop_back();
      }
    }
    EXPECT_TRUE(open.empty()) << "sequence " << seq;
  }
  return spans;
}

// What a viewer shows of the .pftrace is what the Chrome trace says: every slice
// with its own start and end.
void ExpectSameSlices(const model::Profile& profile, const std::string& file) {
  const TraceView view(profile, {});
  CompleteSpans complete(view.header().origin_ns);
  view.Events(complete);
  const Spans expected = complete.Nested();
  const std::string path = TempPath(file);
  ASSERT_TRUE(WritePerfettoTrace(view, path).ok());
  Spans got = PerfettoSlices(ReadFile(path));
  for (auto it = got.begin(); it != got.end();) {
    it = complete.excluded.count({std::get<0>(*it), std::get<1>(*it)}) ? got.erase(it) : ++it;
  }
  EXPECT_EQ(got.size(), expected.size());
  std::vector<std::tuple<std::string, uint64_t, uint64_t>> missing, extra;
  std::set_difference(expected.begin(), expected.end(), got.begin(), got.end(),
                      std::back_inserter(missing));
  std::set_difference(got.begin(), got.end(), expected.begin(), expected.end(),
                      std::back_inserter(extra));
  for (size_t i = 0; i < std::min<size_t>(missing.size(), 5); ++i) {
    const auto& [name, start, end] = missing[i];
    ADD_FAILURE() << "missing " << name << " @" << start << " for " << end - start << " ns";
  }
  for (size_t i = 0; i < std::min<size_t>(extra.size(), 5); ++i) {
    const auto& [name, start, end] = extra[i];
    ADD_FAILURE() << "instead " << name << " @" << start << " for " << end - start << " ns";
  }
}

// The recorded GPT-2 step: "step" and "forward" begin with the same kernel on stream 7.
TEST(PerfettoTraceTest, NestedSlicesThatBeginTogetherKeepTheirSpans) {
  absl::StatusOr<model::Profile> profile =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/real/h200-gpt2-step-trace.sqlite");
  ASSERT_TRUE(profile.ok());
  ExpectSameSlices(*profile, "perfetto_nested_real.pftrace");
}

// Every track kind: ranges on a CPU thread that begin together (recorded inner first,
// as they end), a runtime call that begins with them, ranges that end together, one
// that begins as another ends, and their GPU annotations on a stream (the kernels'
// spans), a kernel that begins as another ends, a range of no duration.
TEST(PerfettoTraceTest, TiesNestOnEveryTrackKind) {
  testing::ProfileBuilder b;
  b.Kernel("k1", 1000, 2000, 7, 11);
  b.Kernel("k2", 2000, 2500, 7, 12);
  b.Kernel("k3", 3000, 4000, 7, 13);
  b.Api("cudaLaunchKernel", 100, 150, 11);
  b.Api("cudaLaunchKernel", 160, 200, 12);
  b.Api("cudaLaunchKernel", 300, 350, 13);
  b.Range("inner", 100, 160, 2);
  b.Range("forward", 100, 200, 1);
  b.Range("zero", 200, 200, 2);
  b.Range("backward", 200, 400, 1);
  b.Range("step", 100, 400, 0);
  b.Range("sibling", 400, 500, 0);
  ExpectSameSlices(b.profile(), "perfetto_nested_ties.pftrace");
}

}  // namespace
}  // namespace cuscope::report
