#include "lib/report/chrome_trace.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rapidjson/document.h"
#include "tests/test_util.h"
#include "tests/unit/builders.h"

namespace cuscope::report {
namespace {

using cuscope::testing::ProfileBuilder;
using ::testing::HasSubstr;
using Value = rapidjson::Value;

constexpr uint32_t kThread = 100;

// Every record kind, with hand-picked times (ns):
//   step [1000,9000] { inner [1500,2500] }, mark at 1700         thread 100
//   cudaLaunchKernel [1200,1210] corr 1 -> gemm [2000,3500] stream 7
//   cuLaunchKernel (driver) [1600,1610] corr 2 -> relu [3600,3700] stream 8 (graph node 77)
//   cudaMemcpyAsync [1800,1850] -> HtoD pinned 4096 B [4000,4100]
//   cudaMemsetAsync [1900,1950] -> memset 1024 B [4200,4300]
//   orphan kernel [5000,5100] corr 50, no API call
//   cudaStreamSynchronize [6000,7000] corr 60 (no GPU work), sync record [6010,6990]
//   precise kernel [1234567,1236000] corr 70, no API call
//   CUPTI overhead [8000,8500]
struct TraceProfile {
  ProfileBuilder b;
  uint32_t memcpy_corr = 0, memset_corr = 0;
};

TraceProfile MakeProfile() {
  TraceProfile t;
  ProfileBuilder& b = t.b;
  b.Range("step", 1000, 9000, 0, kThread);
  b.Range("inner", 1500, 2500, 1, kThread);
  model::RangeRecord& mark = b.Range("mark", 1700, 1700, 2, kThread);
  mark.source = model::RangeSource::kNvtxMark;

  b.Api("cudaLaunchKernel", 1200, 1210, 1, kThread);
  model::KernelRecord& gemm = b.Kernel("gemm", 2000, 3500, 7, 1);
  gemm.static_shared_bytes = 2048;
  gemm.dynamic_shared_bytes = 1024;

  model::ApiRecord& drv = b.Api("cuLaunchKernel", 1600, 1610, 2, kThread);
  drv.domain = model::ApiDomain::kDriver;
  b.Kernel("relu", 3600, 3700, 8, 2).graph_node_id = 77;

  t.memcpy_corr = b.Memcpy(model::MemcpyKind::kHtoD, model::MemoryKind::kPinned, 4096, 4000, 4100)
                      .correlation_id;
  b.Api("cudaMemcpyAsync", 1800, 1850, t.memcpy_corr, kThread);
  t.memset_corr = b.Memset(1024, 4200, 4300).correlation_id;
  b.Api("cudaMemsetAsync", 1900, 1950, t.memset_corr, kThread);

  b.Kernel("orphan", 5000, 5100, 7, 50);
  b.Api("cudaStreamSynchronize", 6000, 7000, 60, kThread);
  model::SyncRecord& sync = b.Sync(model::SyncType::kStreamSynchronize, 6010, 6990);
  sync.process_id = 4242;
  sync.thread_id = kThread;
  b.Kernel("precise", 1234567, 1236000, 7, 70);

  model::OverheadRecord o;
  o.start_ns = 8000;
  o.end_ns = 8500;
  o.kind = b.profile().strings.Intern("CUPTI buffer flush");
  o.thread_id = kThread;
  b.profile().overheads.push_back(o);
  return t;
}

using testing_util::ReadFile;

std::string TracePath(const std::string& name) {
  return ::testing::TempDir() + "/cuscope_" + name + ".json";
}

// Writes the trace, parses it back.
struct Trace {
  std::string text;
  rapidjson::Document doc;
  ChromeTraceStats stats;
};
void WriteAndParse(const model::Profile& p, const std::string& name, Trace& t) {
  const std::string path = TracePath(name);
  absl::Status status = WriteChromeTrace(p, path, &t.stats);
  ASSERT_TRUE(status.ok()) << status;
  t.text = ReadFile(path);
  t.doc.Parse(t.text.c_str());
  ASSERT_FALSE(t.doc.HasParseError()) << t.text;
  ASSERT_TRUE(t.doc.IsObject());
  ASSERT_TRUE(t.doc.HasMember("traceEvents"));
  std::remove(path.c_str());
}

std::string Str(const Value& v, const char* key) {
  return v.HasMember(key) && v[key].IsString() ? v[key].GetString() : "";
}

// Complete events of a category and name.
std::vector<const Value*> Events(const rapidjson::Document& doc, const std::string& ph,
                                 const std::string& cat = "", const std::string& name = "") {
  std::vector<const Value*> out;
  for (const Value& e : doc["traceEvents"].GetArray()) {
    if (Str(e, "ph") != ph) continue;
    if (!cat.empty() && Str(e, "cat") != cat) continue;
    if (!name.empty() && Str(e, "name") != name) continue;
    out.push_back(&e);
  }
  return out;
}

const Value& One(const rapidjson::Document& doc, const std::string& cat, const std::string& name) {
  std::vector<const Value*> events = Events(doc, "X", cat, name);
  EXPECT_EQ(events.size(), 1u) << cat << " " << name;
  static const Value kNull;
  return events.empty() ? kNull : *events[0];
}

TEST(ChromeTraceTest, TopLevelKinetoFields) {
  TraceProfile p = MakeProfile();
  p.b.profile().run.rank = 3;
  p.b.profile().run.notes.world_size = 8;
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "top", t));
  const auto& doc = t.doc;
  EXPECT_EQ(doc["schemaVersion"].GetInt(), 1);
  EXPECT_STREQ(doc["displayTimeUnit"].GetString(), "ms");
  EXPECT_EQ(doc["baseTimeNanoseconds"].GetInt64(), 0);
  ASSERT_EQ(doc["deviceProperties"].Size(), 1u);
  const Value& dev = doc["deviceProperties"][0];
  EXPECT_EQ(dev["id"].GetInt(), 0);
  EXPECT_STREQ(dev["name"].GetString(), "NVIDIA H200");
  EXPECT_EQ(dev["numSms"].GetInt(), 132);
  EXPECT_EQ(dev["computeMajor"].GetInt(), 9);
  EXPECT_EQ(dev["totalGlobalMem"].GetInt64(), 150ll << 30);
  EXPECT_EQ(dev["maxThreadsPerMultiprocessor"].GetInt(), 64 * 32);
  ASSERT_TRUE(doc.HasMember("distributedInfo"));
  EXPECT_EQ(doc["distributedInfo"]["rank"].GetInt(), 3);
  EXPECT_EQ(doc["distributedInfo"]["world_size"].GetInt(), 8);
  EXPECT_EQ(t.stats.events, doc["traceEvents"].Size());
}

// HTA refuses a trace without distributedInfo.rank: a run without a rank is rank 0
// of a world of 1.
TEST(ChromeTraceTest, DistributedInfoWithoutRankIsRankZero) {
  TraceProfile p = MakeProfile();
  ASSERT_EQ(p.b.profile().run.rank, -1);
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "norank", t));
  ASSERT_TRUE(t.doc.HasMember("distributedInfo"));
  EXPECT_EQ(t.doc["distributedInfo"]["rank"].GetInt(), 0);
  EXPECT_EQ(t.doc["distributedInfo"]["world_size"].GetInt(), 1);
  EXPECT_FALSE(t.doc["distributedInfo"].HasMember("backend"));
}

TEST(ChromeTraceTest, EveryCategoryPresent) {
  TraceProfile p = MakeProfile();
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "categories", t));
  std::map<std::string, int> counts;
  for (const Value* e : Events(t.doc, "X")) ++counts[Str(*e, "cat")];
  EXPECT_EQ(counts["kernel"], 4);
  EXPECT_EQ(counts["gpu_memcpy"], 1);
  EXPECT_EQ(counts["gpu_memset"], 1);
  EXPECT_EQ(counts["cuda_runtime"], 4);
  EXPECT_EQ(counts["cuda_driver"], 1);
  EXPECT_EQ(counts["cuda_sync"], 1);
  EXPECT_EQ(counts["user_annotation"], 2);
  EXPECT_EQ(counts["gpu_user_annotation"], 3);
  EXPECT_EQ(counts["overhead"], 1);
  EXPECT_EQ(counts.size(), 9u);
  // The mark is an instant event on its thread.
  std::vector<const Value*> marks = Events(t.doc, "i", "user_annotation", "mark");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_DOUBLE_EQ((*marks[0])["ts"].GetDouble(), 1.7);
  EXPECT_EQ((*marks[0])["tid"].GetInt(), 100);
}

TEST(ChromeTraceTest, KernelEventTimesPlacementAndArgs) {
  TraceProfile p = MakeProfile();
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "kernel", t));
  const Value& gemm = One(t.doc, "kernel", "gemm");
  ASSERT_TRUE(gemm.IsObject());
  EXPECT_EQ(gemm["pid"].GetInt(), 0);
  EXPECT_EQ(gemm["tid"].GetInt(), 7);
  EXPECT_DOUBLE_EQ(gemm["ts"].GetDouble(), 2.0);
  EXPECT_DOUBLE_EQ(gemm["dur"].GetDouble(), 1.5);
  const Value& args = gemm["args"];
  EXPECT_EQ(args["correlation"].GetInt(), 1);
  EXPECT_EQ(args["External id"].GetInt(), 1);
  EXPECT_EQ(args["stream"].GetInt(), 7);
  EXPECT_EQ(args["device"].GetInt(), 0);
  EXPECT_EQ(args["context"].GetInt(), 1);
  EXPECT_EQ(args["registers per thread"].GetInt(), 32);
  EXPECT_EQ(args["shared memory"].GetInt(), 3072);
  ASSERT_EQ(args["grid"].Size(), 3u);
  EXPECT_EQ(args["grid"][0].GetInt(), 128);
  EXPECT_EQ(args["grid"][1].GetInt(), 1);
  EXPECT_EQ(args["grid"][2].GetInt(), 1);
  ASSERT_EQ(args["block"].Size(), 3u);
  EXPECT_EQ(args["block"][0].GetInt(), 256);
  EXPECT_NEAR(args["blocks per SM"].GetDouble(), 128.0 / 132.0, 1e-6);
  EXPECT_NEAR(args["warps per SM"].GetDouble(), 128.0 / 132.0 * 256.0 / 32.0, 1e-5);
  EXPECT_FALSE(args.HasMember("graph node"));

  const Value& relu = One(t.doc, "kernel", "relu");
  ASSERT_TRUE(relu.IsObject());
  EXPECT_EQ(relu["tid"].GetInt(), 8);
  EXPECT_EQ(relu["args"]["graph node"].GetInt(), 77);
}

TEST(ChromeTraceTest, TimestampsExactToTheNanosecond) {
  TraceProfile p = MakeProfile();
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "exact", t));
  const Value& precise = One(t.doc, "kernel", "precise");
  ASSERT_TRUE(precise.IsObject());
  EXPECT_DOUBLE_EQ(precise["ts"].GetDouble(), 1234.567);
  EXPECT_DOUBLE_EQ(precise["dur"].GetDouble(), 1.433);
  EXPECT_THAT(t.text, HasSubstr("\"ts\":1234.567,\"dur\":1.433,"));
  EXPECT_THAT(t.text, HasSubstr("\"ts\":2.000,\"dur\":1.500,"));
}

TEST(ChromeTraceTest, RelativeToClockOriginWithBaseTime) {
  // CUPTI timestamps near the Unix epoch clock: 19 digits, more than a double
  // holds. They are written relative to the run's start.
  ProfileBuilder b;
  const uint64_t t0 = 1700000000000000000ull;
  b.profile().run.start_ns = t0;
  b.profile().run.start_unix_ns = 1700000000123456789ll;
  b.Kernel("k", t0 + 1234567, t0 + 1236000);
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(b.profile(), "base", t));
  EXPECT_EQ(t.doc["baseTimeNanoseconds"].GetInt64(), 1700000000123456789ll);
  EXPECT_EQ(t.doc["clockOriginNanoseconds"].GetUint64(), t0);
  const Value& k = One(t.doc, "kernel", "k");
  ASSERT_TRUE(k.IsObject());
  EXPECT_DOUBLE_EQ(k["ts"].GetDouble(), 1234.567);
  EXPECT_DOUBLE_EQ(k["dur"].GetDouble(), 1.433);
}

TEST(ChromeTraceTest, OriginMovesToEarliestRecordBeforeRunStart) {
  ProfileBuilder b;
  b.profile().run.start_ns = 5000;
  b.profile().run.start_unix_ns = 1000000;
  b.Kernel("early", 4000, 4500);  // before the run's start
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(b.profile(), "early", t));
  EXPECT_EQ(t.doc["baseTimeNanoseconds"].GetInt64(), 1000000 - 1000);
  const Value& k = One(t.doc, "kernel", "early");
  ASSERT_TRUE(k.IsObject());
  EXPECT_DOUBLE_EQ(k["ts"].GetDouble(), 0.0);
  EXPECT_DOUBLE_EQ(k["dur"].GetDouble(), 0.5);
}

TEST(ChromeTraceTest, MemoryEvents) {
  TraceProfile p = MakeProfile();
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "memory", t));
  const Value& copy = One(t.doc, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)");
  ASSERT_TRUE(copy.IsObject());
  EXPECT_EQ(copy["pid"].GetInt(), 0);
  EXPECT_EQ(copy["tid"].GetInt(), 7);
  EXPECT_DOUBLE_EQ(copy["ts"].GetDouble(), 4.0);
  EXPECT_DOUBLE_EQ(copy["dur"].GetDouble(), 0.1);
  EXPECT_EQ(copy["args"]["bytes"].GetInt(), 4096);
  EXPECT_DOUBLE_EQ(copy["args"]["memory bandwidth (GB/s)"].GetDouble(), 40.96);
  EXPECT_EQ(copy["args"]["correlation"].GetUint(), p.memcpy_corr);
  EXPECT_FALSE(copy["args"].HasMember("External id"));  // no range encloses its launch

  const Value& set = One(t.doc, "gpu_memset", "Memset (Device)");
  ASSERT_TRUE(set.IsObject());
  EXPECT_EQ(set["args"]["bytes"].GetInt(), 1024);
  EXPECT_DOUBLE_EQ(set["args"]["memory bandwidth (GB/s)"].GetDouble(), 10.24);
}

TEST(ChromeTraceTest, HostEventsOnProcessAndThread) {
  TraceProfile p = MakeProfile();
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "host", t));
  const Value& launch = One(t.doc, "cuda_runtime", "cudaLaunchKernel");
  ASSERT_TRUE(launch.IsObject());
  EXPECT_EQ(launch["pid"].GetInt(), 4242);
  EXPECT_EQ(launch["tid"].GetInt(), 100);
  EXPECT_DOUBLE_EQ(launch["ts"].GetDouble(), 1.2);
  EXPECT_DOUBLE_EQ(launch["dur"].GetDouble(), 0.01);
  EXPECT_EQ(launch["args"]["correlation"].GetInt(), 1);
  EXPECT_EQ(launch["args"]["External id"].GetInt(), 1);

  const Value& driver = One(t.doc, "cuda_driver", "cuLaunchKernel");
  ASSERT_TRUE(driver.IsObject());
  EXPECT_EQ(driver["args"]["correlation"].GetInt(), 2);

  // Kineto's shape: on the device, the stream as thread.
  const Value& sync = One(t.doc, "cuda_sync", "Stream Sync");
  ASSERT_TRUE(sync.IsObject());
  EXPECT_EQ(sync["pid"].GetInt(), 0);
  EXPECT_EQ(sync["tid"].GetInt(), 7);
  EXPECT_EQ(sync["args"]["device"].GetInt(), 0);
  EXPECT_FALSE(sync["args"].HasMember("wait_on_stream"));  // only event waits have it
  EXPECT_DOUBLE_EQ(sync["ts"].GetDouble(), 6.01);
  EXPECT_DOUBLE_EQ(sync["dur"].GetDouble(), 0.98);
  EXPECT_EQ(sync["args"]["stream"].GetInt(), 7);
  EXPECT_STREQ(sync["args"]["cuda_sync_kind"].GetString(), "Stream Sync");

  const Value& step = One(t.doc, "user_annotation", "step");
  ASSERT_TRUE(step.IsObject());
  EXPECT_EQ(step["pid"].GetInt(), 4242);
  EXPECT_EQ(step["tid"].GetInt(), 100);
  EXPECT_DOUBLE_EQ(step["ts"].GetDouble(), 1.0);
  EXPECT_DOUBLE_EQ(step["dur"].GetDouble(), 8.0);

  const Value& overhead = One(t.doc, "overhead", "CUPTI buffer flush");
  ASSERT_TRUE(overhead.IsObject());
  EXPECT_EQ(overhead["pid"].GetInt(), -1);
  EXPECT_DOUBLE_EQ(overhead["dur"].GetDouble(), 0.5);
}

TEST(ChromeTraceTest, FlowPairsMatchLaunchesToGpuWork) {
  TraceProfile p = MakeProfile();
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "flows", t));
  std::map<uint32_t, const Value*> starts, finishes;
  for (const Value* e : Events(t.doc, "s")) {
    EXPECT_TRUE(starts.emplace((*e)["id"].GetUint(), e).second) << "duplicate flow start";
  }
  for (const Value* e : Events(t.doc, "f")) {
    EXPECT_TRUE(finishes.emplace((*e)["id"].GetUint(), e).second) << "duplicate flow end";
  }
  const std::set<uint32_t> expected = {1, 2, p.memcpy_corr, p.memset_corr};
  std::set<uint32_t> start_ids, finish_ids;
  for (const auto& [id, e] : starts) start_ids.insert(id);
  for (const auto& [id, e] : finishes) finish_ids.insert(id);
  EXPECT_EQ(start_ids, expected);
  EXPECT_EQ(finish_ids, expected);

  // Launch at 1.2 us on (4242, 100) -> gemm at 2.0 us on (0, 7).
  const Value& s = *starts.at(1);
  EXPECT_STREQ(s["cat"].GetString(), "ac2g");
  EXPECT_STREQ(s["name"].GetString(), "ac2g");
  EXPECT_STREQ(s["bp"].GetString(), "e");
  EXPECT_EQ(s["pid"].GetInt(), 4242);
  EXPECT_EQ(s["tid"].GetInt(), 100);
  EXPECT_DOUBLE_EQ(s["ts"].GetDouble(), 1.2);
  const Value& f = *finishes.at(1);
  EXPECT_STREQ(f["cat"].GetString(), "ac2g");
  EXPECT_STREQ(f["bp"].GetString(), "e");
  EXPECT_EQ(f["pid"].GetInt(), 0);
  EXPECT_EQ(f["tid"].GetInt(), 7);
  EXPECT_DOUBLE_EQ(f["ts"].GetDouble(), 2.0);
  // The driver launch -> relu on stream 8.
  EXPECT_DOUBLE_EQ((*starts.at(2))["ts"].GetDouble(), 1.6);
  EXPECT_EQ((*finishes.at(2))["tid"].GetInt(), 8);
  // The memset's flow ends on the memset.
  EXPECT_DOUBLE_EQ((*finishes.at(p.memset_corr))["ts"].GetDouble(), 4.2);
}

TEST(ChromeTraceTest, OneFlowStartWhenRuntimeAndDriverShareCorrelation) {
  ProfileBuilder b;
  b.Api("cudaLaunchKernel", 1000, 1100, 5, kThread);
  b.Api("cuLaunchKernel", 1020, 1080, 5, kThread).domain = model::ApiDomain::kDriver;
  b.Kernel("k", 2000, 2500, 7, 5);
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(b.profile(), "shared_corr", t));
  std::vector<const Value*> starts = Events(t.doc, "s");
  ASSERT_EQ(starts.size(), 1u);
  EXPECT_DOUBLE_EQ((*starts[0])["ts"].GetDouble(), 1.0);  // on the runtime call
  EXPECT_EQ(Events(t.doc, "f").size(), 1u);
}

TEST(ChromeTraceTest, GpuUserAnnotationsSpanLaunchedKernelsPerStream) {
  TraceProfile p = MakeProfile();
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "annotations", t));
  std::vector<const Value*> step = Events(t.doc, "X", "gpu_user_annotation", "step");
  ASSERT_EQ(step.size(), 2u);
  std::map<int, const Value*> by_stream;
  for (const Value* e : step) by_stream[(*e)["tid"].GetInt()] = e;
  ASSERT_EQ(by_stream.count(7), 1u);
  ASSERT_EQ(by_stream.count(8), 1u);
  EXPECT_EQ((*by_stream[7])["pid"].GetInt(), 0);
  EXPECT_DOUBLE_EQ((*by_stream[7])["ts"].GetDouble(), 2.0);  // gemm
  EXPECT_DOUBLE_EQ((*by_stream[7])["dur"].GetDouble(), 1.5);
  EXPECT_DOUBLE_EQ((*by_stream[8])["ts"].GetDouble(), 3.6);  // relu
  EXPECT_DOUBLE_EQ((*by_stream[8])["dur"].GetDouble(), 0.1);
  // relu was launched in "inner", gemm was not (launched at 1200, before inner).
  const Value& inner = One(t.doc, "gpu_user_annotation", "inner");
  ASSERT_TRUE(inner.IsObject());
  EXPECT_EQ(inner["tid"].GetInt(), 8);
  EXPECT_DOUBLE_EQ(inner["ts"].GetDouble(), 3.6);
}

TEST(ChromeTraceTest, MetadataNamesProcessesAndThreads) {
  TraceProfile p = MakeProfile();
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p.b.profile(), "metadata", t));
  std::map<std::pair<int, int>, std::string> process_names, thread_names;
  for (const Value* e : Events(t.doc, "M")) {
    const std::string what = Str(*e, "name");
    const auto key = std::make_pair((*e)["pid"].GetInt(), (*e)["tid"].GetInt());
    if (what == "process_name") process_names[key] = (*e)["args"]["name"].GetString();
    if (what == "thread_name") thread_names[key] = (*e)["args"]["name"].GetString();
  }
  EXPECT_EQ(process_names[std::make_pair(0, 0)], "GPU 0 NVIDIA H200");
  EXPECT_EQ(process_names[std::make_pair(4242, 0)], "./app --flag");
  EXPECT_EQ(process_names[std::make_pair(-1, 0)], "CUPTI overhead");
  EXPECT_EQ(thread_names[std::make_pair(0, 7)], "stream 7");
  EXPECT_EQ(thread_names[std::make_pair(0, 8)], "stream 8");
  EXPECT_EQ(thread_names[std::make_pair(4242, 100)], "thread 100");
  EXPECT_EQ(process_names.size(), 3u);
  EXPECT_EQ(thread_names.size(), 3u);
}

TEST(ChromeTraceTest, InvalidRecordsSkipped) {
  ProfileBuilder b;
  b.Kernel("good", 1000, 2000);
  b.Kernel("backwards", 3000, 2500);
  b.Kernel("unstarted", 0, 100);
  b.Api("cudaLaunchKernel", 900, 800, 1);
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(b.profile(), "invalid", t));
  EXPECT_EQ(Events(t.doc, "X").size(), 1u);
  EXPECT_EQ(Events(t.doc, "X", "kernel", "good").size(), 1u);
}

TEST(ChromeTraceTest, EmptyProfileIsValidJson) {
  model::Profile p;
  Trace t;
  ASSERT_NO_FATAL_FAILURE(WriteAndParse(p, "empty", t));
  EXPECT_EQ(t.doc["traceEvents"].Size(), 0u);
  EXPECT_EQ(t.stats.events, 0u);
}

TEST(ChromeTraceTest, WritesToOpenStream) {
  TraceProfile p = MakeProfile();
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ChromeTraceStats stats;
  ASSERT_TRUE(WriteChromeTrace(p.b.profile(), f, &stats).ok());
  std::rewind(f);
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof(buf), f)) > 0;) text.append(buf, n);
  std::fclose(f);
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  ASSERT_FALSE(doc.HasParseError());
  EXPECT_EQ(stats.events, doc["traceEvents"].Size());
  EXPECT_GT(stats.events, 20u);
}

TEST(ChromeTraceTest, UnwritablePathIsAnErrorNamingThePath) {
  TraceProfile p = MakeProfile();
  const std::string path = ::testing::TempDir() + "/no/such/dir/trace.json";
  absl::Status status = WriteChromeTrace(p.b.profile(), path);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
}

}  // namespace
}  // namespace cuscope::report
