// Two recorded profiles merged into one .pftrace as ranks 0 and 1, read back with the
// generated messages of lib/report/proto/perfetto_trace.proto: each rank's slices are
// those of its own .pftrace, on tracks named for the rank, its timestamps moved onto
// the common clock (as the merged Chrome trace's), its flow ids made distinct, and its
// process a process of its own even when two ranks had the same pid.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/report/perfetto_trace.h"
#include "lib/store/reader.h"
#include "report/proto/perfetto_trace.pb.h"
#include "tests/test_util.h"

namespace cuscope::report {
namespace {

namespace pp = perfetto::protos;
using testing_util::ReadFile;
using testing_util::TempPath;

model::Profile Load(const std::string& name) {
  absl::StatusOr<model::Profile> p =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/" + name);
  EXPECT_TRUE(p.ok()) << name << ": " << p.status();
  return p.ok() ? *std::move(p) : model::Profile();
}

// A .pftrace read back: per rank (from the "rank N: " name of a track or one of its
// parents; -1 without), the slice begin times in file order, the flow ids, and the
// process descriptors (pid -> name).
struct Read {
  std::map<int, std::vector<uint64_t>> begins;
  std::map<int, std::set<uint64_t>> flows;
  std::map<int32_t, std::string> processes;
  std::set<std::string> root_names;  // tracks without a parent
  uint64_t packets = 0;
};

Read ReadTrace(const std::string& path) {
  pp::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(ReadFile(path))) << path;
  Read r;
  r.packets = static_cast<uint64_t>(trace.packet_size());
  std::map<uint64_t, std::pair<std::string, uint64_t>> tracks;  // uuid -> name, parent
  std::map<uint32_t, uint64_t> sequence_track;
  auto rank_of = [&](uint64_t uuid) {
    for (int hops = 0; hops < 4 && tracks.count(uuid) != 0; ++hops) {
      const std::string& name = tracks[uuid].first;
      if (name.rfind("rank ", 0) == 0) return std::stoi(name.substr(5));
      uuid = tracks[uuid].second;
    }
    return -1;
  };
  for (const pp::TracePacket& p : trace.packet()) {
    if (p.has_track_descriptor()) {
      const pp::TrackDescriptor& d = p.track_descriptor();
      tracks[d.uuid()] = {d.name(), d.parent_uuid()};
      if (!d.has_parent_uuid()) r.root_names.insert(d.name());
      if (d.has_process()) r.processes[d.process().pid()] = d.process().process_name();
      if (p.has_trace_packet_defaults()) {
        sequence_track[p.trusted_packet_sequence_id()] =
            p.trace_packet_defaults().track_event_defaults().track_uuid();
      }
      continue;
    }
    const pp::TrackEvent& te = p.track_event();
    if (te.type() == pp::TrackEvent::TYPE_COUNTER) continue;
    const int rank = rank_of(sequence_track[p.trusted_packet_sequence_id()]);
    if (te.type() == pp::TrackEvent::TYPE_SLICE_BEGIN) r.begins[rank].push_back(p.timestamp());
    for (uint64_t f : te.flow_ids_old()) r.flows[rank].insert(f);
  }
  return r;
}

class MergedPerfettoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = Load("h200-timeline-demo.sqlite");
    b_ = Load("h200-torch-loop.sqlite");
    ASSERT_GT(b_.run.start_unix_ns, a_.run.start_unix_ns);  // recorded later
    ASSERT_NE(a_.run.pid, b_.run.pid);
  }
  model::Profile a_, b_;
};

TEST_F(MergedPerfettoTest, EachRankIsItsOwnTraceOnTheCommonClock) {
  const TraceView va(a_, {}), vb(b_, {});
  const std::string single[2] = {TempPath("mp_a.pftrace"), TempPath("mp_b.pftrace")};
  PerfettoTraceStats single_stats[2];
  ASSERT_TRUE(WritePerfettoTrace(va, single[0], &single_stats[0]).ok());
  ASSERT_TRUE(WritePerfettoTrace(vb, single[1], &single_stats[1]).ok());
  const std::string merged_path = TempPath("mp_merged.pftrace");
  PerfettoTraceStats stats;
  // Given out of order: written by rank.
  ASSERT_TRUE(WriteMergedPerfettoTrace({{&vb, 1}, {&va, 0}}, merged_path, &stats).ok());
  const Read merged = ReadTrace(merged_path);
  EXPECT_EQ(merged.packets, stats.packets);
  EXPECT_EQ(stats.slices, single_stats[0].slices + single_stats[1].slices);

  // Rank 1's clock starts (in Unix time) this long after rank 0's, the merged origin.
  const uint64_t shift[2] = {
      0, static_cast<uint64_t>(vb.header().base_unix_ns - va.header().base_unix_ns)};
  EXPECT_GT(shift[1], uint64_t{1'000'000'000});  // seconds apart: a shift a test notices
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(rank);
    const Read own = ReadTrace(single[rank]);
    ASSERT_EQ(own.begins.size(), 1u);  // a single profile's tracks carry no rank
    const std::vector<uint64_t>& own_begins = own.begins.begin()->second;
    ASSERT_EQ(merged.begins.count(rank), 1u);
    const std::vector<uint64_t>& m = merged.begins.at(rank);
    ASSERT_EQ(m.size(), own_begins.size());
    ASSERT_FALSE(m.empty());
    for (size_t i = 0; i < m.size(); ++i) ASSERT_EQ(m[i], own_begins[i] + shift[rank]) << i;
    // Flow ids: the rank's own, in the rank's block.
    std::set<uint64_t> expected;
    for (uint64_t f : own.flows.begin()->second) expected.insert((uint64_t(rank) << 32) | f);
    EXPECT_EQ(merged.flows.at(rank), expected);
  }
  EXPECT_EQ(merged.begins.count(-1), 0u) << "a slice on a track of no rank";
  // One process per rank, named for it, with its own pid.
  ASSERT_EQ(merged.processes.size(), 2u);
  EXPECT_EQ(merged.processes.at(static_cast<int32_t>(a_.run.pid)),
            "rank 0: " + a_.run.command_line);
  EXPECT_EQ(merged.processes.at(static_cast<int32_t>(b_.run.pid)),
            "rank 1: " + b_.run.command_line);
  for (const std::string& name : merged.root_names) {
    EXPECT_TRUE(name.rfind("rank 0: ", 0) == 0 || name.rfind("rank 1: ", 0) == 0) << name;
  }
}

TEST_F(MergedPerfettoTest, SamePidOnTwoRanksMakesTwoProcesses) {
  const TraceView va(a_, {});
  const std::string path = TempPath("mp_same_pid.pftrace");
  ASSERT_TRUE(WriteMergedPerfettoTrace({{&va, 0}, {&va, 3}}, path).ok());
  const Read merged = ReadTrace(path);
  ASSERT_EQ(merged.processes.size(), 2u);
  EXPECT_EQ(merged.processes.begin()->first, a_.run.pid);
  EXPECT_GE(merged.processes.rbegin()->first, 1 << 22);  // above Linux's pid range
  EXPECT_EQ(merged.processes.rbegin()->second, "rank 3: " + a_.run.command_line);
  EXPECT_EQ(merged.begins.at(0), merged.begins.at(3));  // one clock: the same profile
}

TEST_F(MergedPerfettoTest, RefusesTwoProfilesOfOneRank) {
  const TraceView va(a_, {}), vb(b_, {});
  const absl::Status st = WriteMergedPerfettoTrace({{&va, 2}, {&vb, 2}}, TempPath("mp_x.pftrace"));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("rank 2"), absl::string_view::npos) << st.message();
}

}  // namespace
}  // namespace cuscope::report
