// The .pftrace of a recorded profile, read back with the generated messages of
// lib/report/proto/perfetto_trace.proto: a valid Trace whose tracks, slices, flows,
// interned names and counters say what the Chrome trace of the same view says.
#include "lib/report/perfetto_trace.h"

#include <zlib.h>

#include <map>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "lib/report/chrome_trace.h"
#include "lib/store/reader.h"
#include "report/proto/perfetto_trace.pb.h"
#include "tests/test_util.h"

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

}  // namespace
}  // namespace cuscope::report
