// GPU metric samples in the traces (lib/report/trace_view_samples.cc): counter events
// on each GPU's process in the Chrome trace, counter tracks under each GPU in the
// .pftrace, both with each sample's derived rates; the window keeps the samples that
// overlap it; merged ranks keep theirs on their own GPU.
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/model/metrics.h"
#include "lib/report/chrome_trace.h"
#include "lib/report/perfetto_trace.h"
#include "lib/report/trace_filter.h"
#include "rapidjson/document.h"
#include "report/proto/perfetto_trace.pb.h"
#include "tests/test_util.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

namespace m = ::cuscope::metrics;
namespace pp = perfetto::protos;
using cuscope::testing::ProfileBuilder;
using rapidjson::Value;
using testing_util::ReadFile;
using testing_util::TempPath;

// Device 0 (an H200, 132 SMs): a kernel over [1.0, 1.1) ms and a sample every 10 us
// of it: 19,800 SM cycles elapsed (1,980 MHz), 9,900 + 990 * i active, tensor 20%,
// DRAM 40%, 1,000 instructions, 2 MB read and 3 MB written (500 GB/s); no L2 metric.
// Sample 3's active cycles are NaN. Device 1 (no device record, no work): DRAM % only,
// 3 samples of 5%, 15%, 25% at 2.0, 2.1, 2.2 ms.
ProfileBuilder MakeProfile() {
  ProfileBuilder b;
  model::Profile& p = b.profile();
  b.Kernel("gemm", 1000000, 1100000);
  model::GpuSampleConfig c;
  c.interval_ns = 10000;
  for (const char* name :
       {m::kSampledSmCyclesElapsed, m::kSampledSmCyclesActive, m::kSampledTensorPct,
        m::kSampledDramPct, m::kSampledInstExecuted, m::kSampledDramRead, m::kSampledDramWrite}) {
    c.metrics.push_back(p.strings.Intern(name));
  }
  p.sample_configs.push_back(c);
  model::GpuSampleConfig one;
  one.device_id = 1;
  one.interval_ns = 100000;
  one.metrics.push_back(p.strings.Intern(m::kSampledDramPct));
  p.sample_configs.push_back(one);
  for (int i = 0; i < 10; ++i) {
    model::GpuSample s;
    s.start_ns = 1000000 + 10000 * uint64_t(i);
    s.end_ns = s.start_ns + 10000;
    s.values = {19800, 9900 + 990.0 * i, 20, 40, 1000, 2e6, 3e6};
    if (i == 3) s.values[1] = NAN;
    p.samples.push_back(s);
  }
  for (int i = 0; i < 3; ++i) {
    model::GpuSample s;
    s.device_id = 1;
    s.start_ns = 2000000 + 100000 * uint64_t(i);
    s.end_ns = s.start_ns + 100000;
    s.values = {5.0 + 10 * i};
    p.samples.push_back(s);
  }
  return b;
}

rapidjson::Document ChromeTrace(const TraceView& view, const std::string& name) {
  const std::string path = TempPath(name);
  EXPECT_TRUE(WriteChromeTrace(view, path).ok());
  rapidjson::Document d;
  d.Parse(ReadFile(path).c_str());
  EXPECT_FALSE(d.HasParseError()) << path;
  return d;
}

// Counter series of the trace: (pid, name) -> [(ts in us, value)].
using Series = std::map<std::pair<int64_t, std::string>, std::vector<std::pair<double, double>>>;
Series Counters(const rapidjson::Document& d) {
  Series out;
  for (const Value& e : d["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) != "C") continue;
    EXPECT_EQ(std::string(e["cat"].GetString()), "gpu_metrics");
    EXPECT_EQ(e["tid"].GetInt64(), 0);
    EXPECT_EQ(e["args"].MemberCount(), 1u);
    out[{e["pid"].GetInt64(), e["name"].GetString()}].emplace_back(e["ts"].GetDouble(),
                                                                   e["args"]["value"].GetDouble());
  }
  return out;
}

TEST(TraceSamplesTest, ChromeCountersPerGpuWithEachSamplesRates) {
  ProfileBuilder b = MakeProfile();
  const TraceView view(b.profile(), {});
  const rapidjson::Document d = ChromeTrace(view, "samples.json");
  const Series s = Counters(d);
  std::set<std::pair<int64_t, std::string>> names;
  for (const auto& [key, values] : s) names.insert(key);
  const std::set<std::pair<int64_t, std::string>> expected = {
      {0, "SM active %"}, {0, "SM issue %"},   {0, "Tensor pipe %"}, {0, "DRAM %"},
      {0, "DRAM GB/s"},   {0, "SM clock MHz"}, {1, "DRAM %"}};  // no L2: not sampled
  EXPECT_EQ(names, expected);

  const auto& active = s.at({0, "SM active %"});
  ASSERT_EQ(active.size(), 9u);               // sample 3's is NaN: skipped
  EXPECT_DOUBLE_EQ(active[0].first, 1000.0);  // at the sample's start (origin 0)
  EXPECT_NEAR(active[0].second, 50, 1e-6);
  EXPECT_DOUBLE_EQ(active[3].first, 1040.0);
  EXPECT_NEAR(active[3].second, 100.0 * (9900 + 990 * 4) / 19800, 1e-6);
  const auto& clock = s.at({0, "SM clock MHz"});
  ASSERT_EQ(clock.size(), 10u);             // sample 3 keeps its other series
  EXPECT_DOUBLE_EQ(clock[3].second, 1980);  // rounded to 6 decimals
  EXPECT_NEAR(s.at({0, "DRAM GB/s"})[0].second, 500, 1e-6);
  EXPECT_NEAR(s.at({0, "Tensor pipe %"})[0].second, 20, 1e-6);
  EXPECT_NEAR(s.at({0, "SM issue %"})[0].second, 100.0 * 1000 / (132 * 4 * 19800.0), 1e-6);
  const auto& dram1 = s.at({1, "DRAM %"});
  ASSERT_EQ(dram1.size(), 3u);
  EXPECT_DOUBLE_EQ(dram1[2].first, 2200.0);
  EXPECT_NEAR(dram1[2].second, 25, 1e-6);

  // Device 1 did no work and has no device record: its samples still name its process.
  std::set<int64_t> named;
  for (const Value& e : d["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) == "M" &&
        std::string(e["name"].GetString()) == "process_name") {
      named.insert(e["pid"].GetInt64());
    }
  }
  EXPECT_EQ(named.count(0), 1u);
  EXPECT_EQ(named.count(1), 1u);
}

TEST(TraceSamplesTest, WindowKeepsTheSamplesOverlappingIt) {
  ProfileBuilder b = MakeProfile();
  TraceOptions o;
  o.from_ns = 25000;  // after the run's first record (1.0 ms): [1.025, 1.035] ms
  o.to_ns = 35000;
  absl::StatusOr<TraceFilter> f = TraceFilter::Create(b.profile(), o);
  ASSERT_TRUE(f.ok());
  const TraceView view(b.profile(), {}, &*f);
  const Series s = Counters(ChromeTrace(view, "samples_window.json"));
  const auto& clock = s.at({0, "SM clock MHz"});
  ASSERT_EQ(clock.size(), 2u);
  EXPECT_DOUBLE_EQ(clock[0].first, 1020.0);
  EXPECT_DOUBLE_EQ(clock[1].first, 1030.0);
  EXPECT_EQ(s.count({1, "DRAM %"}), 0u);  // device 1's samples are all later

  // A kernel pattern keeps every sample, as it keeps copies and sets.
  TraceOptions k;
  k.kernels = "no_such_kernel";
  absl::StatusOr<TraceFilter> fk = TraceFilter::Create(b.profile(), k);
  ASSERT_TRUE(fk.ok());
  const TraceView all(b.profile(), {}, &*fk);
  EXPECT_EQ(Counters(ChromeTrace(all, "samples_kernels.json")).at({0, "SM clock MHz"}).size(), 10u);
}

TEST(TraceSamplesTest, BinsCombineSamplesAsTheAnalysisCombinesThem) {
  ProfileBuilder b = MakeProfile();
  TraceOptions o;
  o.sample_bin_ns = 30000;
  absl::StatusOr<TraceFilter> f = TraceFilter::Create(b.profile(), o);
  ASSERT_TRUE(f.ok());
  const TraceView view(b.profile(), {}, &*f);
  const Series s = Counters(ChromeTrace(view, "samples_bins.json"));
  // Device 0: bins from 1.00 (samples 0-2), 1.03 (3-5), 1.06 (6-8) and 1.09 ms (9).
  const auto& active = s.at({0, "SM active %"});
  ASSERT_EQ(active.size(), 4u);
  EXPECT_DOUBLE_EQ(active[1].first, 1030.0);
  EXPECT_DOUBLE_EQ(active[3].first, 1090.0);
  EXPECT_NEAR(active[0].second, 100.0 * (3 * 9900 + 990 * 3) / (3 * 19800), 1e-6);
  // Sample 3's active cycles are NaN: the bin's come from samples 4 and 5, over their time.
  EXPECT_NEAR(active[1].second, 100.0 * (2 * 9900 + 990 * 9) / (2 * 19800), 1e-6);
  const auto& dram = s.at({0, "DRAM GB/s"});
  ASSERT_EQ(dram.size(), 4u);
  for (const auto& [ts, v] : dram) EXPECT_NEAR(v, 500, 1e-6) << ts;  // a count per second
  EXPECT_NEAR(s.at({0, "DRAM %"})[0].second, 40, 1e-6);              // a rate, averaged
  EXPECT_DOUBLE_EQ(s.at({0, "SM clock MHz"})[2].second, 1980);
  // Device 1's samples are 100 us apart: a bin each, as they are.
  const auto& dram1 = s.at({1, "DRAM %"});
  ASSERT_EQ(dram1.size(), 3u);
  EXPECT_NEAR(dram1[1].second, 15, 1e-6);

  // With a window: the samples it keeps, binned from the first of them.
  o.from_ns = 45000;  // [1.045, 1.075] ms: samples 4-7
  o.to_ns = 75000;
  absl::StatusOr<TraceFilter> w = TraceFilter::Create(b.profile(), o);
  ASSERT_TRUE(w.ok());
  const TraceView windowed(b.profile(), {}, &*w);
  const Series in_window = Counters(ChromeTrace(windowed, "samples_bins_window.json"));
  const auto& clock = in_window.at({0, "SM clock MHz"});
  ASSERT_EQ(clock.size(), 2u);
  EXPECT_DOUBLE_EQ(clock[0].first, 1040.0);
  EXPECT_DOUBLE_EQ(clock[1].first, 1070.0);
}

// The .pftrace's counter tracks: name -> (parent's name, values in order).
struct PerfettoCounters {
  std::map<std::string, std::string> parent;
  std::map<std::string, std::vector<std::pair<uint64_t, double>>> values;
};
PerfettoCounters ReadPerfetto(const std::string& path) {
  pp::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(ReadFile(path)));
  PerfettoCounters out;
  std::map<uint64_t, std::string> track_names;
  std::map<uint32_t, std::string> sequence_counter;  // sequence -> counter track name
  for (const pp::TracePacket& p : trace.packet()) {
    if (p.has_track_descriptor()) {
      const pp::TrackDescriptor& d = p.track_descriptor();
      track_names[d.uuid()] = d.name();
      if (d.has_counter()) {
        EXPECT_EQ(track_names.count(d.parent_uuid()), 1u) << d.name();
        out.parent[d.name()] = track_names[d.parent_uuid()];
        sequence_counter[p.trusted_packet_sequence_id()] = d.name();
      }
      continue;
    }
    if (!p.has_track_event() || p.track_event().type() != pp::TrackEvent::TYPE_COUNTER) continue;
    auto it = sequence_counter.find(p.trusted_packet_sequence_id());
    EXPECT_NE(it, sequence_counter.end());
    if (it == sequence_counter.end()) continue;
    EXPECT_TRUE(p.track_event().has_double_counter_value());
    out.values[it->second].emplace_back(p.timestamp(), p.track_event().double_counter_value());
  }
  return out;
}

TEST(TraceSamplesTest, PerfettoCounterTracksUnderEachGpu) {
  ProfileBuilder b = MakeProfile();
  const TraceView view(b.profile(), {});
  const std::string path = TempPath("samples.pftrace");
  ASSERT_TRUE(WritePerfettoTrace(view, path).ok());
  const PerfettoCounters c = ReadPerfetto(path);
  EXPECT_EQ(c.parent.at("GPU 0 SM active %"), "GPU 0 NVIDIA H200");
  EXPECT_EQ(c.parent.at("GPU 1 DRAM %"), "GPU 1");
  EXPECT_EQ(c.parent.count("GPU 0 L2 GB/s"), 0u);
  EXPECT_EQ(c.parent.size(), 7u);
  const auto& active = c.values.at("GPU 0 SM active %");
  ASSERT_EQ(active.size(), 9u);
  EXPECT_EQ(active[0].first, 1000000u);
  EXPECT_NEAR(active[0].second, 50, 1e-9);
  const auto& dram = c.values.at("GPU 0 DRAM GB/s");
  ASSERT_EQ(dram.size(), 10u);
  EXPECT_NEAR(dram[9].second, 500, 1e-9);
  EXPECT_EQ(c.values.at("GPU 1 DRAM %").size(), 3u);
}

TEST(TraceSamplesTest, MergedRanksKeepTheirSamplesOnTheirOwnGpu) {
  ProfileBuilder b0 = MakeProfile(), b1 = MakeProfile();
  b1.profile().samples.resize(10);  // rank 1: device 0's samples only
  for (model::GpuSample& s : b1.profile().samples) s.values[3] = 60;
  const TraceView v0(b0.profile(), {}), v1(b1.profile(), {});

  const std::string json = TempPath("samples_merged.json");
  ASSERT_TRUE(WriteMergedChromeTrace({{&v0, 0}, {&v1, 1}}, json).ok());
  rapidjson::Document d;
  d.Parse(ReadFile(json).c_str());
  ASSERT_FALSE(d.HasParseError());
  const Series s = Counters(d);
  EXPECT_EQ(s.at({0, "DRAM %"}).size(), 10u);
  EXPECT_NEAR(s.at({0, "DRAM %"})[0].second, 40, 1e-9);
  EXPECT_EQ(s.at({kRankPidStride, "DRAM %"}).size(), 10u);
  EXPECT_NEAR(s.at({kRankPidStride, "DRAM %"})[0].second, 60, 1e-9);
  EXPECT_EQ(s.count({kRankPidStride + 1, "DRAM %"}), 0u);
  EXPECT_EQ(s.at({1, "DRAM %"}).size(), 3u);

  const std::string pf = TempPath("samples_merged.pftrace");
  ASSERT_TRUE(WriteMergedPerfettoTrace({{&v0, 0}, {&v1, 1}}, pf).ok());
  const PerfettoCounters c = ReadPerfetto(pf);
  // Each rank's series on a track of its own under that rank's GPU.
  EXPECT_EQ(c.parent.size(), 13u);
  size_t under_rank1 = 0;
  for (const auto& [name, parent] : c.parent) under_rank1 += parent == "rank 1: GPU 0 NVIDIA H200";
  EXPECT_EQ(under_rank1, 6u);
  EXPECT_EQ(c.parent.at("rank 1: GPU 0 DRAM %"), "rank 1: GPU 0 NVIDIA H200");
  EXPECT_EQ(c.parent.at("rank 0: GPU 1 DRAM %"), "rank 0: GPU 1");
  EXPECT_NEAR(c.values.at("rank 1: GPU 0 DRAM %")[0].second, 60, 1e-9);
}

TEST(TraceSamplesTest, ProfileWithoutSamplesHasNoCounters) {
  ProfileBuilder b = MakeProfile();
  b.profile().samples.clear();
  const TraceView view(b.profile(), {});
  EXPECT_TRUE(Counters(ChromeTrace(view, "no_samples.json")).empty());
}

}  // namespace
}  // namespace cuscope::report
