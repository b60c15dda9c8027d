// The Chrome trace of every recorded profile in tests/data, loaded with Holistic
// Trace Analysis's parsing rules reproduced here (HTA 0.x: hta/common/trace_file.py,
// hta/common/trace_parser.py, hta/configs/parser_config.py and
// hta/configs/event_args_formats/event_args_1.0.0.yaml), and with Kineto's shapes
// that HTA's analyses rely on (libkineto/src/output_json.cpp, CuptiActivity.cpp).
#include <dirent.h>
#include <zlib.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/report/chrome_trace.h"
#include "lib/store/reader.h"
#include "rapidjson/document.h"
#include "tests/test_util.h"

namespace cuscope {
namespace {

using rapidjson::Value;
using testing_util::ReadFile;
using testing_util::TempPath;

// HTA's value types of the args it reads (AVAILABLE_ARGS, raw name -> type) that a
// cuscope trace writes. Int: a JSON integer; Float: any number; Object: an array;
// String: a string. "blocks per SM" is "Object" in HTA's YAML but Kineto writes a
// float and HTA only passes it through: checked as a number.
enum class ArgType { kInt, kFloat, kArray, kString };
const std::map<std::string, ArgType>& HtaArgTypes() {
  static const auto* types = new std::map<std::string, ArgType>{
      {"External id", ArgType::kInt},
      {"cbid", ArgType::kInt},
      {"correlation", ArgType::kInt},
      {"blocks per SM", ArgType::kFloat},
      {"est. achieved occupancy %", ArgType::kInt},
      {"warps per SM", ArgType::kFloat},
      {"bytes", ArgType::kInt},
      {"memory bandwidth (GB/s)", ArgType::kFloat},
      {"context", ArgType::kInt},
      {"device", ArgType::kInt},
      {"stream", ArgType::kInt},
      {"queued", ArgType::kInt},
      {"shared memory", ArgType::kInt},
      {"block", ArgType::kArray},
      {"grid", ArgType::kArray},
      {"registers per thread", ArgType::kInt},
      {"wait_on_stream", ArgType::kInt},
      {"wait_on_cuda_event_record_corr_id", ArgType::kInt},
      {"name", ArgType::kString},
      {"sort_index", ArgType::kInt},
  };
  return *types;
}

// The kernel args Kineto writes (GpuActivity<CUpti_ActivityKernel4>::metadataJson).
const char* const kKinetoKernelArgs[] = {
    "queued",        "device",        "context",
    "stream",        "correlation",   "registers per thread",
    "shared memory", "blocks per SM", "warps per SM",
    "grid",          "block",         "est. achieved occupancy %"};

std::vector<std::string> RecordedProfiles() {
  std::vector<std::string> paths;
  for (const std::string& dir :
       {std::string(CUSCOPE_TEST_DATA_DIR), std::string(CUSCOPE_TEST_DATA_DIR) + "/real"}) {
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) continue;
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 7 && name.substr(name.size() - 7) == ".sqlite") {
        paths.push_back(dir + "/" + name);
      }
    }
    closedir(d);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::string Gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  if (f == nullptr) return out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return out;
}

bool HasType(const Value& v, ArgType t) {
  switch (t) {
    case ArgType::kInt:
      return v.IsInt64() || v.IsUint64();
    case ArgType::kFloat:
      return v.IsNumber();
    case ArgType::kArray:
      return v.IsArray();
    case ArgType::kString:
      return v.IsString();
  }
  return false;
}

// Checks one trace document against HTA's loader and parser and Kineto's shapes.
void CheckHtaContract(const rapidjson::Document& doc, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_TRUE(doc.IsObject());
  // trace_file.py create_rank_to_trace_dict: distributedInfo.rank, an int >= 0.
  ASSERT_TRUE(doc.HasMember("distributedInfo"));
  const Value& dist = doc["distributedInfo"];
  ASSERT_TRUE(dist.HasMember("rank") && dist["rank"].IsInt());
  EXPECT_GE(dist["rank"].GetInt(), 0);
  if (dist.HasMember("world_size")) {
    EXPECT_GT(dist["world_size"].GetInt(), dist["rank"].GetInt());
  }
  // trace.py trace_event_timestamp_to_unixtime_ns: baseTimeNanoseconds.
  ASSERT_TRUE(doc.HasMember("baseTimeNanoseconds") && doc["baseTimeNanoseconds"].IsInt64());
  ASSERT_TRUE(doc.HasMember("traceEvents") && doc["traceEvents"].IsArray());

  std::set<int64_t> gpu_pids, cpu_op_ids;
  std::map<int64_t, int> runtime_corr;  // cuda_runtime/driver correlation -> count
  std::vector<const Value*> kernels, launches_with_ext, syncs;
  size_t parsed = 0;
  for (const Value& e : doc["traceEvents"].GetArray()) {
    ASSERT_TRUE(e.IsObject());
    // _compress_df: events without dur or cat are dropped; the rest need the
    // DEFAULT_MIN_REQUIRED_COLS ts, dur, name, cat, pid, tid.
    if (!e.HasMember("dur") || !e.HasMember("cat")) continue;
    ++parsed;
    for (const char* col : {"ts", "dur", "name", "cat", "pid", "tid"}) {
      ASSERT_TRUE(e.HasMember(col)) << "an event without " << col;
    }
    ASSERT_TRUE(e["ts"].IsNumber() && e["dur"].IsNumber());
    EXPECT_GE(e["dur"].GetDouble(), 0.0);
    EXPECT_GE(e["ts"].GetDouble(), 0.0);
    ASSERT_TRUE(e["name"].IsString() && e["cat"].IsString());
    ASSERT_TRUE(e["pid"].IsInt64() && e["tid"].IsInt64()) << e["name"].GetString();
    if (e.HasMember("args")) {
      ASSERT_TRUE(e["args"].IsObject());
      for (const auto& m : e["args"].GetObject()) {
        auto it = HtaArgTypes().find(m.name.GetString());
        if (it == HtaArgTypes().end()) continue;
        EXPECT_TRUE(HasType(m.value, it->second))
            << "arg '" << m.name.GetString() << "' of " << e["name"].GetString();
      }
    }
    const std::string cat = e["cat"].GetString();
    const Value* args = e.HasMember("args") ? &e["args"] : nullptr;
    if (cat == "kernel") {
      kernels.push_back(&e);
      gpu_pids.insert(e["pid"].GetInt64());
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
      ASSERT_TRUE(args && args->HasMember("correlation"));
      ++runtime_corr[(*args)["correlation"].GetInt64()];
      if (args->HasMember("External id")) launches_with_ext.push_back(&e);
    } else if (cat == "user_annotation" || cat == "cpu_op") {
      if (args && args->HasMember("External id")) {
        cpu_op_ids.insert((*args)["External id"].GetInt64());
      }
    } else if (cat == "cuda_sync") {
      syncs.push_back(&e);
    }
  }
  EXPECT_GT(parsed, 0u);

  for (const Value* k : kernels) {
    const Value& a = (*k)["args"];
    for (const char* key : kKinetoKernelArgs) {
      EXPECT_TRUE(a.HasMember(key)) << "kernel arg " << key;
    }
    // GPUKernelFilter: a kernel sits on its stream (tid == stream >= 0).
    EXPECT_EQ((*k)["tid"].GetInt64(), a["stream"].GetInt64());
    EXPECT_EQ((*k)["pid"].GetInt64(), a["device"].GetInt64());
    // transform_correlation_to_index: the launch, when recorded, is one event.
    auto it = runtime_corr.find(a["correlation"].GetInt64());
    if (it != runtime_corr.end()) {
      EXPECT_LE(it->second, 2);  // the runtime call and its driver call
    }
    // External id only where a CPU op (a range) encloses the launch.
    if (a.HasMember("External id")) {
      EXPECT_EQ(cpu_op_ids.count(a["External id"].GetInt64()), 1u);
    }
  }
  for (const Value* l : launches_with_ext) {
    EXPECT_EQ(cpu_op_ids.count((*l)["args"]["External id"].GetInt64()), 1u);
  }
  for (const Value* s : syncs) {
    const Value& a = (*s)["args"];
    // Kineto: pid is the device, tid the stream (|-1| = 1 for no stream).
    ASSERT_TRUE(a.HasMember("device") && a.HasMember("stream") && a.HasMember("cuda_sync_kind"));
    EXPECT_EQ((*s)["pid"].GetInt64(), a["device"].GetInt64());
    const int64_t stream = a["stream"].GetInt64();
    EXPECT_EQ((*s)["tid"].GetInt64(), stream < 0 ? -stream : stream);
    const std::string kind = a["cuda_sync_kind"].GetString();
    if (kind == "Event Sync" || kind == "Stream Wait Event") {
      EXPECT_TRUE(a.HasMember("wait_on_stream"));
      EXPECT_TRUE(a.HasMember("wait_on_cuda_event_record_corr_id"));
    }
  }
}

TEST(HtaContractTest, EveryRecordedProfileLoads) {
  const std::vector<std::string> profiles = RecordedProfiles();
  ASSERT_GE(profiles.size(), 3u) << "recorded profiles in " << CUSCOPE_TEST_DATA_DIR;
  size_t kernels = 0;
  for (const std::string& path : profiles) {
    absl::StatusOr<model::Profile> profile = store::LoadProfile(path);
    ASSERT_TRUE(profile.ok()) << path << ": " << profile.status();
    kernels += profile->kernels.size();
    // HTA opens names ending in .json or .gz (parse_trace_dict).
    const std::string json = TempPath("hta_contract.trace.json");
    const std::string gz = TempPath("hta_contract.trace.json.gz");
    ASSERT_TRUE(report::WriteChromeTrace(*profile, json).ok());
    ASSERT_TRUE(report::WriteChromeTrace(*profile, gz).ok());
    const std::string text = ReadFile(json);
    EXPECT_EQ(Gunzip(gz), text) << "the .gz trace decompresses to the .json one";
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    ASSERT_FALSE(doc.HasParseError()) << path;
    CheckHtaContract(doc, path);
  }
  EXPECT_GT(kernels, 0u);
}

// A run launched by torchrun: its rank and world size reach distributedInfo, and
// NCCL kernels name the backend.
TEST(HtaContractTest, RankWorldSizeAndBackend) {
  absl::StatusOr<model::Profile> profile =
      store::LoadProfile(std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-torch-loop.sqlite");
  ASSERT_TRUE(profile.ok());
  profile->run.rank = 1;
  profile->run.notes.world_size = 2;
  profile->run.notes.local_rank = 1;
  profile->strings.AppendUnchecked("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)");
  profile->kernels.push_back(profile->kernels.front());
  profile->kernels.back().name = static_cast<model::StringId>(profile->strings.size() - 1);
  const std::string json = TempPath("hta_contract_rank.trace.json");
  ASSERT_TRUE(report::WriteChromeTrace(*profile, json).ok());
  rapidjson::Document doc;
  const std::string text = ReadFile(json);
  doc.Parse(text.data(), text.size());
  ASSERT_FALSE(doc.HasParseError());
  CheckHtaContract(doc, "rank 1");
  const Value& dist = doc["distributedInfo"];
  EXPECT_EQ(dist["rank"].GetInt(), 1);
  EXPECT_EQ(dist["world_size"].GetInt(), 2);
  EXPECT_EQ(dist["local_rank"].GetInt(), 1);
  EXPECT_STREQ(dist["backend"].GetString(), "nccl");
}

}  // namespace
}  // namespace cuscope
