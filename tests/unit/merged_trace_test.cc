// Two recorded profiles merged into one Chrome trace as ranks 0 and 1: each rank's
// events are its own trace's, with pids moved into the rank's block, process names
// prefixed by the rank, flow ids made distinct and timestamps on the common clock.
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/analysis/kernel_counters.h"
#include "lib/report/chrome_trace.h"
#include "lib/store/reader.h"
#include "rapidjson/document.h"
#include "tests/test_util.h"

namespace cuscope::report {
namespace {

using rapidjson::Value;
using testing_util::ReadFile;
using testing_util::TempPath;

struct Loaded {
  model::Profile profile;
  std::vector<analysis::KernelCounters> counters;
};

Loaded Load(const std::string& name) {
  absl::StatusOr<model::Profile> p =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/" + name);
  EXPECT_TRUE(p.ok()) << name << ": " << p.status();
  Loaded l{p.ok() ? *std::move(p) : model::Profile(), {}};
  if (!l.profile.counters.empty()) l.counters = analysis::AnalyzeCounters(l.profile);
  return l;
}

rapidjson::Document Parse(const std::string& path) {
  rapidjson::Document d;
  d.Parse(ReadFile(path).c_str());
  EXPECT_FALSE(d.HasParseError()) << path << " at offset " << d.GetErrorOffset();
  EXPECT_TRUE(d.IsObject()) << path;
  return d;
}

bool IsMetadata(const Value& e) { return std::string(e["ph"].GetString()) == "M"; }

class MergedTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    a_ = Load("h200-timeline-demo.sqlite");
    b_ = Load("h200-torch-loop.sqlite");
    ASSERT_FALSE(a_.profile.kernels.empty());
    ASSERT_FALSE(b_.profile.kernels.empty());
  }
  Loaded a_, b_;
};

TEST_F(MergedTraceTest, EachRankIsItsOwnTraceOnTheCommonClock) {
  const TraceView va(a_.profile, a_.counters), vb(b_.profile, b_.counters);
  const std::string single_a = TempPath("merged_a.json"), single_b = TempPath("merged_b.json");
  const std::string merged_path = TempPath("merged.json");
  ASSERT_TRUE(WriteChromeTrace(va, single_a).ok());
  ASSERT_TRUE(WriteChromeTrace(vb, single_b).ok());
  ChromeTraceStats stats;
  // Given out of order: written by rank.
  ASSERT_TRUE(WriteMergedChromeTrace({{&vb, 1}, {&va, 0}}, merged_path, &stats).ok());

  const rapidjson::Document merged = Parse(merged_path);
  const rapidjson::Document singles[2] = {Parse(single_a), Parse(single_b)};
  ASSERT_TRUE(merged["traceEvents"].IsArray());
  EXPECT_EQ(merged["distributedInfo"]["world_size"].GetInt64(), 2);
  EXPECT_EQ(merged["distributedInfo"]["rank"].GetInt(), 0);

  // The common clock starts at the earlier origin; each rank is moved by how much
  // later its own origin is (in Unix time).
  const int64_t base[2] = {singles[0]["baseTimeNanoseconds"].GetInt64(),
                           singles[1]["baseTimeNanoseconds"].GetInt64()};
  ASSERT_GT(base[0], 0);
  ASSERT_GT(base[1], base[0]);  // the torch loop was recorded after the timeline demo
  EXPECT_EQ(merged["baseTimeNanoseconds"].GetInt64(), base[0]);
  const double offset_us[2] = {0.0, static_cast<double>(base[1] - base[0]) / 1000.0};
  EXPECT_GT(offset_us[1], 1e6);  // seconds apart: a shift that a test would notice

  // Split the merged events by rank (pid block), keeping file order.
  std::vector<const Value*> events[2], processes[2];
  for (const Value& e : merged["traceEvents"].GetArray()) {
    const int64_t pid = e["pid"].GetInt64();
    const int rank = pid >= kRankPidStride - 1 ? 1 : 0;  // rank 1's overhead: stride - 1
    (IsMetadata(e) ? processes : events)[rank].push_back(&e);
  }
  uint64_t total = 0;
  std::set<int64_t> pids[2];
  for (int rank = 0; rank < 2; ++rank) {
    SCOPED_TRACE(rank);
    const Value& single = singles[rank]["traceEvents"];
    std::vector<const Value*> own_events;
    std::map<int64_t, std::string> own_names;  // pid -> process name
    for (const Value& e : single.GetArray()) {
      if (!IsMetadata(e)) {
        own_events.push_back(&e);
      } else if (std::string(e["name"].GetString()) == "process_name") {
        own_names[e["pid"].GetInt64()] = e["args"]["name"].GetString();
      }
    }
    total += single.Size();
    // Process names: the rank's own, prefixed, on moved pids.
    size_t named = 0;
    for (const Value* m : processes[rank]) {
      const int64_t pid = (*m)["pid"].GetInt64();
      pids[rank].insert(pid);
      if (std::string((*m)["name"].GetString()) != "process_name") continue;
      ++named;
      const int64_t own_pid = pid - rank * kRankPidStride;
      ASSERT_TRUE(own_names.count(own_pid)) << pid;
      EXPECT_EQ((*m)["args"]["name"].GetString(),
                "rank " + std::to_string(rank) + ": " + own_names[own_pid]);
    }
    EXPECT_EQ(named, own_names.size());
    ASSERT_GE(named, 2u);  // host process and GPU
    // Every other event: the same, moved by the rank's pid block and clock offset.
    ASSERT_EQ(events[rank].size(), own_events.size());
    for (size_t i = 0; i < own_events.size(); ++i) {
      const Value& m = *events[rank][i];
      const Value& o = *own_events[i];
      EXPECT_EQ(m["ph"], o["ph"]) << i;
      EXPECT_EQ(m["name"], o["name"]) << i;
      EXPECT_EQ(m["tid"], o["tid"]) << i;
      EXPECT_EQ(m["pid"].GetInt64(), o["pid"].GetInt64() + rank * kRankPidStride) << i;
      EXPECT_NEAR(m["ts"].GetDouble(), o["ts"].GetDouble() + offset_us[rank], 5e-4) << i;
      if (o.HasMember("dur")) {
        EXPECT_EQ(m["dur"], o["dur"]) << i;
      }
      if (o.HasMember("id")) {
        EXPECT_EQ(m["id"].GetUint64(), (uint64_t(rank) << 32) | o["id"].GetUint64()) << i;
      }
    }
  }
  EXPECT_EQ(stats.events, total);
  for (int64_t pid : pids[0]) EXPECT_EQ(pids[1].count(pid), 0u) << pid;
}

TEST_F(MergedTraceTest, RefusesTwoProfilesOfOneRank) {
  const TraceView va(a_.profile, a_.counters), vb(b_.profile, b_.counters);
  const absl::Status st =
      WriteMergedChromeTrace({{&va, 1}, {&vb, 1}}, TempPath("merged_same_rank.json"));
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("rank 1"), absl::string_view::npos) << st.message();
}

}  // namespace
}  // namespace cuscope::report
