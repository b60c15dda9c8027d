// Tests of the profile file (lib/store): round trips, incremental
// appends, crash survival, and clear errors for files that are not profiles.

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/model/profile.h"
#include "lib/store/reader.h"
#include "lib/store/schema.h"
#include "lib/store/writer.h"
#include "tests/test_util.h"
#include "tests/unit/builders.h"

namespace cuscope::model {
namespace {

using ::testing::HasSubstr;
using store::kSchemaVersion;
using store::LoadProfile;
using store::ProfileWriter;
using store::SaveProfile;

constexpr uint64_t kAbove32 = (uint64_t{1} << 32) + 12345;
constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();

// A profile in which every record kind is present and every field differs from
// its default, including enums at their last values, integers above 2^32 (and
// one above 2^63), and strings with quotes, unicode and an embedded NUL.
Profile FullProfile() {
  Profile p;
  RunInfo& r = p.run;
  r.command_line = R"(./app --name="x y" 'single' ünïcødé ✓ 日本語)";
  r.pid = 123456789012;
  r.start_unix_ns = 1700000000123456789;
  r.end_unix_ns = 1700000005123456789;
  r.start_ns = kAbove32 + 1;
  r.end_ns = 0xFFFFFFFFFFFFFFF0ull;  // above 2^63: survives as a bit pattern
  r.cuscope_version = "0.1.0-test";
  r.hostname = "gpu-node-07";
  r.rank = 3;
  r.dropped_records = kAbove32 + 2;
  r.buffers_refused = 17;
  r.internal_kernels = 5;
  r.exit_reason = "signal 11";
  r.extra = {{"CUDA_VISIBLE_DEVICES", "0,1"},
             {"quote'key\"", "va\"l'ue"},
             {"ключ", "значение ✓"},
             {"", "empty key"},
             {"empty value", ""}};

  DeviceInfo d;
  d.id = 3;  // out of id order on purpose: devices load in the order written
  d.name = "NVIDIA H200 \"SXM\" ✓";
  d.uuid = "GPU-0123456789abcdef";
  d.compute_major = 9;
  d.compute_minor = 1;
  d.sm_count = 132;
  d.global_memory_bytes = int64_t{150} << 30;
  d.global_memory_bandwidth_kbps = 4800000000;
  d.l2_cache_bytes = int64_t{60} << 20;
  d.max_threads_per_block = 1024;
  d.max_warps_per_sm = 64;
  d.max_blocks_per_sm = 32;
  d.max_registers_per_sm = 65536;
  d.max_registers_per_block = 65535;
  d.max_shared_memory_per_sm = 233472;
  d.max_shared_memory_per_block = 232448;
  d.warp_size = 32;
  d.core_clock_khz = 1980000;
  p.devices.push_back(d);
  d.id = 1;
  d.name = "second";
  d.core_clock_khz = -1;
  p.devices.push_back(d);

  KernelRecord k;
  k.start_ns = kAbove32 + 100;
  k.end_ns = kAbove32 + 200;
  k.device_id = 3;
  k.context_id = 4;
  k.stream_id = kMax32;
  k.correlation_id = kMax32 - 1;
  k.name = p.strings.Intern("void gemm<float, 128>(float const*, int) 'q' \"qq\"");
  k.mangled_name = p.strings.Intern("_Z4gemmIfLi128EEvPKfi");
  k.grid = {kMax32, 65535, 3};
  k.block = {1024, 2, 4};
  k.registers_per_thread = 255;
  k.static_shared_bytes = 49152;
  k.dynamic_shared_bytes = 100000;
  k.graph_id = 9;
  k.graph_node_id = kAbove32 + 3;
  k.flags = kKernelCountersMeasured;
  p.kernels.push_back(k);
  k.start_ns += 1000;
  k.end_ns += 1000;
  k.name = p.strings.Intern("ünïcødé_kernel ✓ 日本語");
  k.mangled_name = p.strings.Intern(std::string("with\0nul", 8));
  k.flags = 0xF0F0F0F0;
  p.kernels.push_back(k);

  MemcpyRecord m;
  m.start_ns = kAbove32 + 300;
  m.end_ns = kAbove32 + 400;
  m.device_id = 3;
  m.context_id = 4;
  m.stream_id = 5;
  m.correlation_id = 6;
  m.bytes = kAbove32 + 4;
  m.kind = MemcpyKind::kPtoP;
  m.src_kind = MemoryKind::kManagedStatic;
  m.dst_kind = MemoryKind::kPinned;
  m.src_device_id = 3;
  m.dst_device_id = 1;
  m.graph_node_id = kAbove32 + 5;
  p.memcpys.push_back(m);

  MemsetRecord s;
  s.start_ns = kAbove32 + 500;
  s.end_ns = kAbove32 + 600;
  s.device_id = 1;
  s.context_id = 2;
  s.stream_id = 3;
  s.correlation_id = 4;
  s.bytes = kAbove32 + 6;
  s.value = 0xDEADBEEF;
  s.memory_kind = MemoryKind::kManaged;
  s.graph_node_id = kAbove32 + 7;
  p.memsets.push_back(s);

  ApiRecord a;
  a.start_ns = kAbove32 + 50;
  a.end_ns = kAbove32 + 99;
  a.domain = ApiDomain::kDriver;
  a.callback_id = 211;
  a.name = p.strings.Intern("cuLaunchKernel");
  a.process_id = 4242;
  a.thread_id = kMax32;
  a.correlation_id = kMax32 - 1;
  a.return_value = std::numeric_limits<int32_t>::min();
  p.api_calls.push_back(a);
  a.domain = ApiDomain::kRuntime;
  a.name = p.strings.Intern("cudaMemcpyAsync");
  a.return_value = -7;
  p.api_calls.push_back(a);

  SyncRecord y;
  y.start_ns = kAbove32 + 700;
  y.end_ns = kAbove32 + 800;
  y.type = SyncType::kContextSynchronize;
  y.context_id = 4;
  y.stream_id = 0xffffffff;
  y.correlation_id = 77;
  y.process_id = 4242;
  y.thread_id = 99;
  p.syncs.push_back(y);

  RangeRecord g;
  g.start_ns = kAbove32 + 10;
  g.end_ns = kAbove32 + 900;
  g.name = p.strings.Intern("epoch 'one' \"1\"");
  g.domain = p.strings.Intern("my.domain ✓");
  g.source = RangeSource::kScope;
  g.process_id = 4242;
  g.thread_id = 98;
  g.id = kAbove32 + 8;
  g.depth = 5;
  p.ranges.push_back(g);
  g.source = RangeSource::kNvtxMark;
  g.end_ns = g.start_ns;  // marks have no duration
  p.ranges.push_back(g);

  OverheadRecord o;
  o.start_ns = kAbove32 + 20;
  o.end_ns = kAbove32 + 30;
  o.kind = p.strings.Intern("CUPTI buffer flush");
  o.thread_id = 55;
  o.correlation_id = 66;
  p.overheads.push_back(o);

  CounterSet c;
  c.device_id = 3;
  c.name = p.kernels[0].name;
  c.grid = {kMax32, 65535, 3};
  c.block = {1024, 2, 4};
  c.strategy = CounterStrategy::kUserRange;
  c.passes = kMax32;
  c.correlation_ids = {kMax32, 0, 7};
  c.values = {{p.strings.Intern("dram__bytes.sum"), 1e15},
              {p.strings.Intern("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 87.25},
              {p.strings.Intern("zero"), 0},
              {p.strings.Intern("tiny"), 1e-300},
              {p.strings.Intern("denormal"), std::numeric_limits<double>::denorm_min()},
              {p.strings.Intern("max"), std::numeric_limits<double>::max()},
              {p.strings.Intern("lowest"), std::numeric_limits<double>::lowest()},
              {p.strings.Intern("integral above 2^53"), std::ldexp(1.0, 62) + 2048},
              {p.strings.Intern("negative"), -0.1},
              {p.strings.Intern("+inf"), std::numeric_limits<double>::infinity()},
              {p.strings.Intern("-inf"), -std::numeric_limits<double>::infinity()},
              {p.strings.Intern("metric 'quoted' ✓"), 1.0 / 3}};
  p.counters.push_back(c);
  c.strategy = CounterStrategy::kKernelReplay;
  c.name = p.strings.Intern("a region ✓");
  c.correlation_ids = {};
  c.values = {};  // a set with no values and no launches
  p.counters.push_back(c);

  DeviceMetric dm;
  dm.device_id = 3;
  dm.metric = p.strings.Intern("dram__bytes.sum.peak_sustained");
  dm.value = 2560;
  p.device_metrics.push_back(dm);
  dm.device_id = kMax32;
  dm.metric = p.strings.Intern("sm__cycles_elapsed.avg.per_second");
  dm.value = 1.755e9 + 0.5;
  p.device_metrics.push_back(dm);
  return p;
}

void ExpectSameProfile(const Profile& actual, const Profile& expected) {
  EXPECT_TRUE(actual.run == expected.run);
  EXPECT_EQ(actual.run.extra, expected.run.extra);
  EXPECT_EQ(actual.run.command_line, expected.run.command_line);
  EXPECT_TRUE(actual.devices == expected.devices);
  ASSERT_EQ(actual.strings.size(), expected.strings.size());
  for (StringId id = 0; id < expected.strings.size(); ++id) {
    EXPECT_EQ(actual.strings.Get(id), expected.strings.Get(id)) << "string id " << id;
  }
  EXPECT_TRUE(actual.kernels == expected.kernels);
  EXPECT_TRUE(actual.memcpys == expected.memcpys);
  EXPECT_TRUE(actual.memsets == expected.memsets);
  EXPECT_TRUE(actual.api_calls == expected.api_calls);
  EXPECT_TRUE(actual.syncs == expected.syncs);
  EXPECT_TRUE(actual.ranges == expected.ranges);
  EXPECT_TRUE(actual.overheads == expected.overheads);
  EXPECT_TRUE(actual.counters == expected.counters);
  EXPECT_TRUE(actual.device_metrics == expected.device_metrics);
  EXPECT_EQ(actual.record_count(), expected.record_count());
}

using testing_util::ReadFile;

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Runs SQL on a file directly, as a user with the sqlite3 shell would.
void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error != nullptr ? error : "") << " in " << sql;
  sqlite3_free(error);
  sqlite3_close(db);
}

// The first column of the first row of `sql`, as text ("NULL" for NULL).
std::string QueryText(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  std::string result = "(no row)";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    result = text != nullptr ? reinterpret_cast<const char*>(text) : "NULL";
  } else {
    ADD_FAILURE() << sqlite3_errmsg(db) << " in " << sql;
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return result;
}

int64_t QueryInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  int64_t result = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    result = sqlite3_column_int64(stmt, 0);
  } else {
    ADD_FAILURE() << sqlite3_errmsg(db) << " in " << sql;
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return result;
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir_template = ::testing::TempDir() + "/store_test_XXXXXX";
    ASSERT_NE(mkdtemp(dir_template.data()), nullptr);
    dir_ = dir_template;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

TEST_F(StoreTest, FullProfileRoundTrips) {
  const Profile profile = FullProfile();
  const std::string path = Path("full.sqlite");
  ASSERT_TRUE(SaveProfile(profile, path).ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, profile);
  // The loaded table is a working intern table, not just a list.
  EXPECT_EQ(loaded->strings.Intern("cuLaunchKernel"), profile.api_calls[0].name);
  EXPECT_EQ(loaded->strings.Intern(""), kEmptyString);
}

TEST_F(StoreTest, BuilderProfileRoundTrips) {
  testing::ProfileBuilder b;
  b.Kernel("k1", 100, 200);
  b.Kernel("k2", 300, 450, 8);
  b.Api("cudaLaunchKernel", 90, 95, 1001);
  b.Memcpy(MemcpyKind::kHtoD, MemoryKind::kPageable, 1 << 20, 10, 20);
  b.Memset(4096, 30, 40);
  b.Range("step", 0, 500, 0, 100, "app");
  b.Sync(SyncType::kStreamSynchronize, 460, 470);
  const Profile profile = b.Take();
  const std::string path = Path("builder.sqlite");
  ASSERT_TRUE(SaveProfile(profile, path).ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, profile);
}

// Batches larger than one multi-row INSERT, and not a multiple of its size.
TEST_F(StoreTest, LargeBatchesRoundTrip) {
  testing::ProfileBuilder b;
  for (int i = 0; i < 1000; ++i) {
    b.Kernel(absl::StrCat("kernel_", i % 37), kAbove32 + 10 * i, kAbove32 + 10 * i + 5,
             i % 5);
    if (i % 3 == 0) b.Api("cudaLaunchKernel", 10 * i, 10 * i + 2, 1000 + i, i % 7);
    if (i % 7 == 0) b.Range(absl::StrCat("r", i), 10 * i, 10 * i + 70, i % 3);
  }
  const Profile profile = b.Take();
  const std::string path = Path("large.sqlite");
  ASSERT_TRUE(SaveProfile(profile, path).ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, profile);
}

TEST_F(StoreTest, EmptyProfileRoundTrips) {
  const Profile profile;
  const std::string path = Path("empty.sqlite");
  ASSERT_TRUE(SaveProfile(profile, path).ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, profile);
}

TEST_F(StoreTest, WriterWithoutRunInfoLoadsDefaults) {
  const std::string path = Path("bare.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, Profile());
}

TEST_F(StoreTest, IncrementalAppendsEqualOneSave) {
  const Profile full = FullProfile();
  // A collector: one growing string table, batches cleared after each Append.
  Profile collector;
  collector.run = full.run;
  collector.devices = full.devices;
  const std::string path = Path("incremental.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->WriteRunInfo(RunInfo()).ok());  // at start, replaced at the end
  ASSERT_TRUE((*writer)->WriteDevices(full.devices).ok());

  Profile expected;
  expected.run = full.run;
  expected.devices = full.devices;
  auto intern = [&](StringId id) {
    StringId a = collector.strings.Intern(full.strings.Get(id));
    StringId b = expected.strings.Intern(full.strings.Get(id));
    EXPECT_EQ(a, b);
    return a;
  };
  const int kBatches = 5;
  for (int batch = 0; batch < kBatches; ++batch) {
    // Each batch interns some strings of its own, so the table grows across batches.
    for (size_t i = batch; i < full.kernels.size(); i += kBatches) {
      KernelRecord k = full.kernels[i];
      k.name = intern(k.name);
      k.mangled_name = intern(k.mangled_name);
      collector.kernels.push_back(k);
    }
    for (int i = 0; i < 3; ++i) {
      KernelRecord k;
      k.start_ns = kAbove32 * (batch + 1) + i;
      k.end_ns = k.start_ns + 10;
      k.name = intern(full.api_calls[0].name);
      k.mangled_name = collector.strings.Intern(absl::StrCat("batch_", batch, "_", i));
      expected.strings.Intern(absl::StrCat("batch_", batch, "_", i));
      collector.kernels.push_back(k);
    }
    if (batch == 1) {
      for (ApiRecord a : full.api_calls) {
        a.name = intern(a.name);
        collector.api_calls.push_back(a);
      }
      collector.memcpys = full.memcpys;
      collector.memsets = full.memsets;
    }
    if (batch == 3) {
      for (RangeRecord r : full.ranges) {
        r.name = intern(r.name);
        r.domain = intern(r.domain);
        collector.ranges.push_back(r);
      }
      for (OverheadRecord o : full.overheads) {
        o.kind = intern(o.kind);
        collector.overheads.push_back(o);
      }
      collector.syncs = full.syncs;
    }
    for (const auto& k : collector.kernels) expected.kernels.push_back(k);
    for (const auto& a : collector.api_calls) expected.api_calls.push_back(a);
    for (const auto& m : collector.memcpys) expected.memcpys.push_back(m);
    for (const auto& m : collector.memsets) expected.memsets.push_back(m);
    for (const auto& r : collector.ranges) expected.ranges.push_back(r);
    for (const auto& o : collector.overheads) expected.overheads.push_back(o);
    for (const auto& s : collector.syncs) expected.syncs.push_back(s);
    ASSERT_TRUE((*writer)->Append(collector).ok()) << "batch " << batch;
    collector.ClearRecords();
  }
  // An empty batch is fine.
  ASSERT_TRUE((*writer)->Append(collector).ok());
  ASSERT_TRUE((*writer)->WriteRunInfo(full.run).ok());
  ASSERT_TRUE((*writer)->Close().ok());

  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, expected);

  // The same records saved at once give the same profile back.
  const std::string once = Path("once.sqlite");
  ASSERT_TRUE(SaveProfile(expected, once).ok());
  absl::StatusOr<Profile> loaded_once = LoadProfile(once);
  ASSERT_TRUE(loaded_once.ok()) << loaded_once.status();
  ExpectSameProfile(*loaded_once, *loaded);
}

TEST_F(StoreTest, WriteRunInfoReplacesEverything) {
  const std::string path = Path("runinfo.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  RunInfo first;
  first.command_line = "first";
  first.extra = {{"only_in_first", "1"}, {"both", "a"}};
  ASSERT_TRUE((*writer)->WriteRunInfo(first).ok());
  RunInfo second;
  second.command_line = "second";
  second.exit_reason = "exit";
  second.extra = {{"both", "b"}};
  ASSERT_TRUE((*writer)->WriteRunInfo(second).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->run == second);
  EXPECT_EQ(loaded->run.extra, second.extra);
}

TEST_F(StoreTest, WriteDevicesUpsertsById) {
  const std::string path = Path("devices.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  DeviceInfo d0, d1, d2;
  d0.id = 0;
  d0.name = "zero";
  d1.id = 1;
  d1.name = "one";
  d2.id = 2;
  d2.name = "two";
  ASSERT_TRUE((*writer)->WriteDevices({d1, d0}).ok());
  d1.name = "one, updated";
  d1.sm_count = 7;
  ASSERT_TRUE((*writer)->WriteDevices({d2, d1}).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  // Replaced in place; new ones after the ones already written.
  EXPECT_TRUE(loaded->devices == (std::vector<DeviceInfo>{d1, d0, d2}));
}

TEST_F(StoreTest, AppendRejectsAShrunkStringTable) {
  const std::string path = Path("shrunk.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  Profile batch;
  batch.strings.Intern("a");
  batch.strings.Intern("b");
  ASSERT_TRUE((*writer)->Append(batch).ok());
  Profile other;  // a different (smaller) table: not the collector's growing one
  other.strings.Intern("x");
  absl::Status status = (*writer)->Append(other);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr(path));
}

TEST_F(StoreTest, AppendRejectsUnknownStringIdsAndWritesNothingOfThatBatch) {
  const std::string path = Path("badid.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  Profile batch;
  KernelRecord good;
  good.name = batch.strings.Intern("good");
  batch.kernels.push_back(good);
  KernelRecord bad;
  bad.name = 99;
  batch.kernels.push_back(bad);
  absl::Status status = (*writer)->Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("kernels[1].name_id"));
  // The failed batch was rolled back entirely (its strings too), and the writer
  // still works.
  batch.kernels.pop_back();
  ASSERT_TRUE((*writer)->Append(batch).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, batch);
}

TEST_F(StoreTest, AppendNamesTheRecordWithAnUnknownStringIdInALargeBatch) {
  const std::string path = Path("badid_large.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  Profile batch;
  for (int i = 0; i < 200; ++i) {
    RangeRecord r;
    r.name = batch.strings.Intern(absl::StrCat("r", i));
    r.domain = i == 130 ? 5000 : kEmptyString;
    batch.ranges.push_back(r);
  }
  absl::Status status = (*writer)->Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("ranges[130].domain_id is 5000"));
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->ranges.empty());
  EXPECT_EQ(loaded->strings.size(), 1u);
}

TEST_F(StoreTest, ClosedWriterRefusesWrites) {
  const std::string path = Path("closed.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  EXPECT_EQ((*writer)->path(), path);
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE((*writer)->Close().ok());  // idempotent
  EXPECT_EQ((*writer)->Append(FullProfile()).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ((*writer)->WriteRunInfo(RunInfo()).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ((*writer)->WriteDevices({}).code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(StoreTest, CreateReplacesAnExistingFileAndStaleJournal) {
  const std::string path = Path("replace.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  // A journal left by some earlier crashed writer must not be "rolled back" into
  // the new file.
  WriteFile(path + "-journal", "stale journal bytes");
  testing::ProfileBuilder b;
  b.Kernel("only", 1, 2);
  const Profile second = b.Take();
  ASSERT_TRUE(SaveProfile(second, path).ok());
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, second);
}

TEST_F(StoreTest, FileCopiedBeforeCloseHasEveryAppendedBatch) {
  const std::string path = Path("live.sqlite");
  const Profile full = FullProfile();
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE((*writer)->WriteRunInfo(full.run).ok());
  ASSERT_TRUE((*writer)->WriteDevices(full.devices).ok());
  ASSERT_TRUE((*writer)->Append(full).ok());
  // While the writer is still open: a copy (what survives if the process dies
  // now) and a read of the live file both see the batch.
  std::filesystem::copy_file(path, Path("copy.sqlite"));
  absl::StatusOr<Profile> copy = LoadProfile(Path("copy.sqlite"));
  ASSERT_TRUE(copy.ok()) << copy.status();
  ExpectSameProfile(*copy, full);
  absl::StatusOr<Profile> live = LoadProfile(path);
  ASSERT_TRUE(live.ok()) << live.status();
  ExpectSameProfile(*live, full);
  ASSERT_TRUE((*writer)->Close().ok());
}

TEST_F(StoreTest, ProcessDyingWithoutCloseKeepsAppendedBatches) {
  const std::string path = Path("crash.sqlite");
  const Profile full = FullProfile();
  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    auto writer = ProfileWriter::Create(path);
    if (!writer.ok()) _exit(2);
    if (!(*writer)->WriteRunInfo(full.run).ok()) _exit(3);
    if (!(*writer)->WriteDevices(full.devices).ok()) _exit(4);
    if (!(*writer)->Append(full).ok()) _exit(5);
    writer->release();  // never closed, never destroyed
    _exit(0);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus));
  ASSERT_EQ(WEXITSTATUS(wstatus), 0);
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, full);
}

// The writer dies in the middle of a batch, after SQLite has already written some
// of the batch's pages into the file: the file has a hot journal. LoadProfile must
// return the last committed state without modifying the file.
TEST_F(StoreTest, ProcessDyingMidBatchLoadsTheLastCommittedBatch) {
  const std::string path = Path("midbatch.sqlite");
  const Profile full = FullProfile();
  ASSERT_TRUE(SaveProfile(full, path).ok());
  const std::string committed = ReadFile(path);
  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) _exit(2);
    // A tiny page cache makes SQLite spill uncommitted pages into the file.
    const char* sql =
        "PRAGMA cache_size=10;"
        "BEGIN;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
        "INSERT INTO kernels SELECT i, i + 1, 0, 0, 0, i, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, "
        "0, 0 FROM n;"
        "UPDATE strings SET text = 'overwritten' WHERE id > 0;";
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) _exit(3);
    _exit(0);  // dies inside the transaction
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus));
  ASSERT_EQ(WEXITSTATUS(wstatus), 0);
  ASSERT_TRUE(std::filesystem::exists(path + "-journal"));
  const std::string file_before = ReadFile(path);
  ASSERT_NE(file_before, committed) << "the test meant uncommitted pages to reach the file";
  {
    // What a plain read-only reader sees: a hot journal it may not roll back.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_extended_result_codes(db, 1);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM kernels", -1, &stmt, nullptr),
              SQLITE_READONLY_ROLLBACK);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }
  const std::string journal_before = ReadFile(path + "-journal");

  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, full);
  EXPECT_EQ(ReadFile(path), file_before);
  EXPECT_EQ(ReadFile(path + "-journal"), journal_before);
}

TEST_F(StoreTest, LoadingDoesNotModifyTheFile) {
  const std::string path = Path("readonly.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  const std::string before = ReadFile(path);
  struct stat st_before;
  ASSERT_EQ(stat(path.c_str(), &st_before), 0);
  ASSERT_TRUE(LoadProfile(path).ok());
  struct stat st_after;
  ASSERT_EQ(stat(path.c_str(), &st_after), 0);
  EXPECT_EQ(ReadFile(path), before);
  EXPECT_EQ(st_after.st_mtim.tv_sec, st_before.st_mtim.tv_sec);
  EXPECT_EQ(st_after.st_mtim.tv_nsec, st_before.st_mtim.tv_nsec);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            1);
}

TEST_F(StoreTest, ViewsAndEnumNamesWork) {
  const std::string path = Path("views.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  for (const char* view : {"kernels_named", "kernel_summary", "memcpy_named", "memset_named",
                           "api_calls_named", "syncs_named", "ranges_named", "overheads_named",
                           "counters_named", "device_metrics_named"}) {
    EXPECT_GT(QueryInt(path, absl::StrCat("SELECT count(*) FROM ", view)), 0) << view;
  }
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM kernels_named WHERE name LIKE 'void gemm%' "
                           "AND duration_ns = 100"),
            1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM memcpy_named WHERE kind_name = 'PtoP' AND "
                           "src_kind_name = 'managed_static' AND dst_kind_name = 'pinned'"),
            1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM api_calls_named WHERE domain_name = 'driver' "
                           "AND name = 'cuLaunchKernel'"),
            1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM syncs_named "
                           "WHERE type_name = 'cudaDeviceSynchronize'"),
            1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM ranges_named WHERE source_name = 'scope'"), 1);
  EXPECT_EQ(QueryInt(path, "SELECT launches FROM kernel_summary LIMIT 1"), 1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM counters_named WHERE name LIKE 'void gemm%' "
                           "AND metric = 'dram__bytes.sum' AND value = 1e15 "
                           "AND strategy_name = 'region' AND set_id = 1 AND grid_y = 65535"),
            1);
  EXPECT_EQ(QueryText(path, "SELECT metric FROM counters_named LIMIT 1 OFFSET 2"), "zero");
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM device_metrics_named "
                           "WHERE metric = 'dram__bytes.sum.peak_sustained' AND value = 2560"),
            1);
  for (CounterStrategy s : {CounterStrategy::kRotate, CounterStrategy::kKernelReplay,
                            CounterStrategy::kUserRange}) {
    EXPECT_EQ(QueryText(path, absl::StrCat("SELECT name FROM enum_names WHERE enum = "
                                           "'counter_strategy' AND value = ",
                                           static_cast<int>(s))),
              CounterStrategyName(s));
  }
  EXPECT_EQ(QueryInt(path, "SELECT value FROM meta WHERE key = 'schema_version'"),
            kSchemaVersion);
  EXPECT_EQ(QueryInt(path, "PRAGMA application_id"), 0x43555350);
}

// --- Counters -------------------------------------------------------------

// A counter set with the given values, interned in `p`.
CounterSet MakeSet(Profile& p, const std::string& name, CounterStrategy strategy,
                   std::vector<uint32_t> correlation_ids,
                   const std::vector<std::pair<std::string, double>>& values) {
  CounterSet c;
  c.device_id = static_cast<uint32_t>(name.size() % 3);
  c.name = p.strings.Intern(name);
  c.grid = {static_cast<uint32_t>(name.size()), 2, 1};
  c.block = {256, 1, 1};
  c.strategy = strategy;
  c.passes = static_cast<uint32_t>(std::max<size_t>(1, correlation_ids.size()));
  c.correlation_ids = std::move(correlation_ids);
  for (const auto& [metric, value] : values) {
    c.values.emplace_back(p.strings.Intern(metric), value);
  }
  return c;
}

TEST_F(StoreTest, CountersRoundTrip) {
  Profile p;
  p.kernels.push_back(KernelRecord());
  p.counters.push_back(MakeSet(p, "gemm", CounterStrategy::kRotate, {10, 11, 12},
                               {{"dram__bytes.sum", 1e15},
                                {"gpu__time_duration.sum", 123456},
                                {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 42.125},
                                {"lts__t_bytes.sum", 0},
                                {"fraction", 0.1},
                                {"small", 2.5e-7}}));
  // Same signature again (a second sample), then others, names repeated.
  p.counters.push_back(MakeSet(p, "gemm", CounterStrategy::kRotate, {20, 21, 22},
                               {{"dram__bytes.sum", 3.5e14}, {"lts__t_bytes.sum", 1e15 + 1}}));
  p.counters.push_back(MakeSet(p, "saxpy", CounterStrategy::kKernelReplay, {30}, {}));
  p.counters.push_back(MakeSet(p, "step", CounterStrategy::kUserRange, {},
                               {{"fraction", 1.0 / 7}, {"dram__bytes.sum", 0}}));
  p.counters.push_back(MakeSet(p, "empty", CounterStrategy::kRotate, {}, {}));
  const std::string path = Path("counters.sqlite");
  ASSERT_TRUE(SaveProfile(p, path).ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, p);
  ASSERT_EQ(loaded->counters.size(), 5u);
  // Exactly, not approximately.
  EXPECT_EQ(loaded->counters[0].value(loaded->strings, "fraction", -1), 0.1);
  EXPECT_EQ(loaded->counters[0].value(loaded->strings, "lts__t_bytes.sum", -1), 0);
  EXPECT_EQ(loaded->counters[1].value(loaded->strings, "lts__t_bytes.sum", -1), 1e15 + 1);
  EXPECT_TRUE(loaded->counters[2].values.empty());
  EXPECT_EQ(loaded->counters[3].value(loaded->strings, "fraction", -1), 1.0 / 7);

  // The rows: one set per row numbered from 1, one row per launch and per value.
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM counter_sets"), 5);
  EXPECT_EQ(QueryInt(path, "SELECT min(id) FROM counter_sets"), 1);
  EXPECT_EQ(QueryInt(path, "SELECT max(id) FROM counter_sets"), 5);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM counter_launches"), 7);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM counter_values"), 10);
  EXPECT_EQ(QueryInt(path, "SELECT group_concat(correlation_id) = '20,21,22' FROM "
                           "counter_launches WHERE set_id = 2"),
            1);
  EXPECT_EQ(QueryText(path, "SELECT typeof(value) FROM counter_values LIMIT 1"), "real");
}

// SQLite stores a NaN as NULL: a NaN value is saved as NULL and loads as NaN;
// infinities are stored as such; -0.0 loads as 0.0.
TEST_F(StoreTest, NonFiniteCounterValues) {
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  const double kInf = std::numeric_limits<double>::infinity();
  Profile p;
  p.counters.push_back(MakeSet(p, "k", CounterStrategy::kRotate, {1},
                               {{"nan", kNaN}, {"inf", kInf}, {"-inf", -kInf},
                                {"-nan", -kNaN}, {"-0", -0.0}, {"one", 1}}));
  DeviceMetric m;
  m.metric = p.strings.Intern("nan peak");
  m.value = kNaN;
  p.device_metrics.push_back(m);
  m.metric = p.strings.Intern("inf peak");
  m.value = kInf;
  p.device_metrics.push_back(m);
  const std::string path = Path("nonfinite.sqlite");
  ASSERT_TRUE(SaveProfile(p, path).ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->counters.size(), 1u);
  const auto& values = loaded->counters[0].values;
  ASSERT_EQ(values.size(), 6u);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i].first, p.counters[0].values[i].first) << i;
  }
  EXPECT_TRUE(std::isnan(values[0].second));
  EXPECT_EQ(values[1].second, kInf);
  EXPECT_EQ(values[2].second, -kInf);
  EXPECT_TRUE(std::isnan(values[3].second));
  EXPECT_EQ(values[4].second, 0.0);
  EXPECT_EQ(values[5].second, 1.0);
  ASSERT_EQ(loaded->device_metrics.size(), 2u);
  EXPECT_TRUE(std::isnan(loaded->device_metrics[0].value));
  EXPECT_EQ(loaded->device_metrics[1].value, kInf);
  // In SQL: NULL (so aggregates skip it), and the infinities compare as such.
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM counters_named WHERE value IS NULL"), 2);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM counters_named WHERE value > 1e308"), 1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM device_metrics WHERE value IS NULL"), 1);
}

TEST_F(StoreTest, DeviceMetricsRoundTrip) {
  Profile p;
  for (uint32_t device : {1u, 0u}) {
    for (const auto& [metric, value] :
         std::vector<std::pair<std::string, double>>{{"dram__bytes.sum.peak_sustained", 2560},
                                                     {"sm__cycles_elapsed.avg.per_second",
                                                      1.755e9},
                                                     {"zero", 0},
                                                     {"fraction", 0.3},
                                                     {"big", 1e15}}) {
      DeviceMetric m;
      m.device_id = device;
      m.metric = p.strings.Intern(metric);
      m.value = value * (device + 1);
      p.device_metrics.push_back(m);
    }
  }
  const std::string path = Path("device_metrics.sqlite");
  ASSERT_TRUE(SaveProfile(p, path).ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, p);
  EXPECT_EQ(loaded->device_metrics.size(), 10u);
  EXPECT_EQ(loaded->device_metrics[3].value, 0.6);  // insertion order kept
}

// The collector's way: batches sharing one growing string table, each with new
// metric names, sets and device metrics; a refused batch in the middle.
TEST_F(StoreTest, CountersAppendedAcrossBatches) {
  const std::string path = Path("counters_incremental.sqlite");
  auto writer = ProfileWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status();
  Profile collector;
  Profile expected;
  const int kBatches = 6;
  for (int batch = 0; batch < kBatches; ++batch) {
    for (int i = 0; i < batch * 30; ++i) {  // crosses the 64-row INSERTs from batch 3 on
      std::vector<std::pair<std::string, double>> values;
      for (int j = 0; j <= (i + batch) % 4; ++j) {
        values.emplace_back(absl::StrCat("metric_", batch, "_", j), batch * 1000.5 + i + j);
      }
      collector.counters.push_back(
          MakeSet(collector, absl::StrCat("kernel_", i % 7), static_cast<CounterStrategy>(i % 3),
                  std::vector<uint32_t>(static_cast<size_t>(i % 4), batch * 100 + i), values));
    }
    if (batch % 2 == 1) {
      DeviceMetric m;
      m.device_id = static_cast<uint32_t>(batch);
      m.metric = collector.strings.Intern(absl::StrCat("peak_", batch));
      m.value = batch + 0.25;
      collector.device_metrics.push_back(m);
    }
    KernelRecord k;
    k.name = collector.strings.Intern(absl::StrCat("kernel_in_batch_", batch));
    collector.kernels.push_back(k);

    if (batch == 2) {
      // A refused batch: nothing of it is written, and the set ids do not move.
      Profile bad = collector;
      bad.counters.push_back(MakeSet(bad, "bad", CounterStrategy::kRotate, {1}, {{"m", 1}}));
      bad.counters.back().values.emplace_back(99999, 2.0);
      absl::Status status = (*writer)->Append(bad);
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(status.message(),
                  HasSubstr(absl::StrCat("counters[", bad.counters.size() - 1,
                                         "].values[1].metric_id is 99999")));
    }
    for (StringId id = static_cast<StringId>(expected.strings.size());
         id < collector.strings.size(); ++id) {
      expected.strings.AppendUnchecked(collector.strings.Get(id));
    }
    expected.counters.insert(expected.counters.end(), collector.counters.begin(),
                             collector.counters.end());
    expected.device_metrics.insert(expected.device_metrics.end(),
                                   collector.device_metrics.begin(),
                                   collector.device_metrics.end());
    expected.kernels.insert(expected.kernels.end(), collector.kernels.begin(),
                            collector.kernels.end());
    ASSERT_TRUE((*writer)->Append(collector).ok()) << "batch " << batch;
    collector.ClearRecords();

    // A reader between batches sees every committed batch.
    absl::StatusOr<Profile> live = LoadProfile(path);
    ASSERT_TRUE(live.ok()) << live.status();
    EXPECT_TRUE(live->counters == expected.counters) << "after batch " << batch;
  }
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, expected);
  EXPECT_EQ(expected.counters.size(), 30u * (1 + 2 + 3 + 4 + 5));
  // Set ids are dense: the refused batch took none.
  EXPECT_EQ(QueryInt(path, "SELECT max(id) FROM counter_sets"),
            static_cast<int64_t>(expected.counters.size()));

  // The same records saved at once give the same profile back.
  const std::string once = Path("counters_once.sqlite");
  ASSERT_TRUE(SaveProfile(expected, once).ok());
  absl::StatusOr<Profile> loaded_once = LoadProfile(once);
  ASSERT_TRUE(loaded_once.ok()) << loaded_once.status();
  ExpectSameProfile(*loaded_once, *loaded);
}

TEST_F(StoreTest, AppendRejectsUnknownStringIdsInCounters) {
  const struct {
    const char* what;
    void (*damage)(Profile&);
    const char* expected_in_message;
  } cases[] = {
      {"set name", [](Profile& p) { p.counters[1].name = 1000; }, "counters[1].name_id is 1000"},
      {"metric", [](Profile& p) { p.counters[1].values[2].first = 1001; },
       "counters[1].values[2].metric_id is 1001"},
      {"device metric", [](Profile& p) { p.device_metrics[1].metric = 1002; },
       "device_metrics[1].metric_id is 1002"},
  };
  for (const auto& c : cases) {
    const std::string path = Path(absl::StrCat("badid_", c.what, ".sqlite"));
    auto writer = ProfileWriter::Create(path);
    ASSERT_TRUE(writer.ok()) << writer.status();
    Profile batch;
    batch.kernels.push_back(KernelRecord());
    batch.counters.push_back(MakeSet(batch, "a", CounterStrategy::kRotate, {1}, {{"x", 1}}));
    batch.counters.push_back(
        MakeSet(batch, "b", CounterStrategy::kRotate, {2}, {{"x", 1}, {"y", 2}, {"z", 3}}));
    for (const char* metric : {"p", "q"}) {
      DeviceMetric m;
      m.metric = batch.strings.Intern(metric);
      batch.device_metrics.push_back(m);
    }
    Profile bad = batch;
    c.damage(bad);
    absl::Status status = (*writer)->Append(bad);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(status.message(), HasSubstr(c.expected_in_message)) << c.what;
    EXPECT_THAT(status.message(), HasSubstr(path)) << c.what;
    // Nothing of the refused batch was written; the writer goes on.
    absl::StatusOr<Profile> after_refusal = LoadProfile(path);
    ASSERT_TRUE(after_refusal.ok()) << after_refusal.status();
    ExpectSameProfile(*after_refusal, Profile());
    ASSERT_TRUE((*writer)->Append(batch).ok()) << c.what;
    ASSERT_TRUE((*writer)->Close().ok());
    absl::StatusOr<Profile> loaded = LoadProfile(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ExpectSameProfile(*loaded, batch);
  }
}

// The example of docs/profile-format.md ("top kernels with their DRAM bytes"),
// verbatim: keep the two in sync.
constexpr char kTopKernelsWithDramBytes[] = R"sql(
SELECT substr(k.name, 1, 60) AS kernel, k.launches, round(k.total_ns / 1e6, 3) AS total_ms,
       c.sets, round(c.dram_bytes / 1e6, 3) AS dram_mb,
       round(c.dram_bytes / c.duration_ns, 1) AS dram_gb_per_s
FROM kernel_summary AS k
LEFT JOIN (SELECT name, count(DISTINCT set_id) AS sets,
                  avg(CASE metric WHEN 'dram__bytes.sum' THEN value END) AS dram_bytes,
                  avg(CASE metric WHEN 'gpu__time_duration.sum' THEN value END) AS duration_ns
           FROM counters_named WHERE strategy_name != 'region'
           GROUP BY name) AS c ON c.name = k.name
ORDER BY k.total_ns DESC LIMIT 10
)sql";

TEST_F(StoreTest, DocumentedCounterQueryWorks) {
  testing::ProfileBuilder b;
  for (int i = 0; i < 3; ++i) b.Kernel("gemm", 1000 * i, 1000 * i + 500);
  b.Kernel("copy", 5000, 5100);
  b.Kernel("gemm_other", 6000, 6050);
  Profile p = b.Take();
  p.counters.push_back(MakeSet(p, "gemm", CounterStrategy::kRotate, {1, 2},
                               {{"dram__bytes.sum", 1e6}, {"gpu__time_duration.sum", 400}}));
  p.counters.push_back(MakeSet(p, "gemm", CounterStrategy::kKernelReplay, {3},
                               {{"gpu__time_duration.sum", 600}, {"dram__bytes.sum", 3e6}}));
  // A region of the same name is not a kernel measurement.
  p.counters.push_back(MakeSet(p, "gemm", CounterStrategy::kUserRange, {},
                               {{"dram__bytes.sum", 1e12}}));
  p.counters.push_back(MakeSet(p, "gemm_other", CounterStrategy::kRotate, {5},
                               {{"lts__t_bytes.sum", 7}}));
  const std::string path = Path("doc_query.sqlite");
  ASSERT_TRUE(SaveProfile(p, path).ok());
  const std::string query = kTopKernelsWithDramBytes;
  EXPECT_EQ(QueryText(path, absl::StrCat("SELECT kernel FROM (", query, ")")), "gemm");
  EXPECT_EQ(QueryInt(path, absl::StrCat("SELECT count(*) FROM (", query, ")")), 3);
  EXPECT_EQ(QueryInt(path, absl::StrCat("SELECT count(*) FROM (", query,
                                        ") WHERE kernel = 'gemm' AND launches = 3 AND "
                                        "total_ms = 0.002 AND sets = 2 AND dram_mb = 2.0 AND "
                                        "dram_gb_per_s = 4000.0")),
            1);
  // Measured, but not DRAM bytes; and not measured at all.
  EXPECT_EQ(QueryText(path, absl::StrCat("SELECT coalesce(sets, 'none') || ' ' || "
                                         "coalesce(dram_mb, 'NULL') FROM (",
                                         query, ") WHERE kernel = 'gemm_other'")),
            "1 NULL");
  EXPECT_EQ(QueryText(path, absl::StrCat("SELECT coalesce(sets, 'NULL') FROM (", query,
                                         ") WHERE kernel = 'copy'")),
            "NULL");
}

// A file of schema version 1 (before counters): refused, naming both versions.
TEST_F(StoreTest, Version1FileIsFailedPrecondition) {
  const std::string path = Path("v1.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  Exec(path, "DROP VIEW counters_named; DROP VIEW device_metrics_named;"
             "DROP TABLE counter_values; DROP TABLE counter_launches; DROP TABLE counter_sets;"
             "DROP TABLE device_metrics; DELETE FROM enum_names WHERE enum = 'counter_strategy';"
             "UPDATE meta SET value = '1' WHERE key = 'schema_version';");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path));
  EXPECT_THAT(loaded.status().message(), HasSubstr("schema version 1,"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("reads version 2"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("older cuscope"));
  EXPECT_EQ(kSchemaVersion, 2);
}

// --- Errors ---------------------------------------------------------------

TEST_F(StoreTest, MissingFileIsNotFound) {
  const std::string path = Path("missing.sqlite");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path));
  EXPECT_FALSE(std::filesystem::exists(path));  // not created by the attempt
}

TEST_F(StoreTest, MissingDirectoryIsNotFound) {
  const std::string path = Path("no/such/dir/p.sqlite");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path));
}

TEST_F(StoreTest, DirectoryIsNotAProfile) {
  absl::StatusOr<Profile> loaded = LoadProfile(dir_);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr(dir_));
}

TEST_F(StoreTest, TextFileIsNotAProfile) {
  const std::string path = Path("notes.txt");
  WriteFile(path, "These are not the droids you are looking for.\n"
                  "Some more text, long enough to fill the 100 bytes of a SQLite header.\n");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path + " is not a cuscope profile"));
}

TEST_F(StoreTest, EmptyFileIsNotAProfile) {
  const std::string path = Path("empty_file.sqlite");
  WriteFile(path, "");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path + " is not a cuscope profile"));
  EXPECT_EQ(ReadFile(path), "");  // still empty: the read-only open wrote nothing
}

TEST_F(StoreTest, OtherApplicationsDatabaseIsNotAProfile) {
  const std::string path = Path("other.db");
  Exec(path, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
             "INSERT INTO users (name) VALUES ('alice');");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path + " is not a cuscope profile"));
}

TEST_F(StoreTest, OtherApplicationsMetaTableIsNotAProfile) {
  const std::string path = Path("other_meta.db");
  Exec(path, "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
             "INSERT INTO meta VALUES ('version', '3');");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path + " is not a cuscope profile"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("format"));

  Exec(path, "INSERT INTO meta VALUES ('format', 'something-else');");
  loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr("something-else"));
}

TEST_F(StoreTest, OtherSchemaVersionIsFailedPrecondition) {
  const std::string path = Path("v999.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  Exec(path, "UPDATE meta SET value = '999' WHERE key = 'schema_version';");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path));
  EXPECT_THAT(loaded.status().message(), HasSubstr("version 999"));
  EXPECT_THAT(loaded.status().message(), HasSubstr(absl::StrCat("version ", kSchemaVersion)));
}

TEST_F(StoreTest, CreateInMissingDirectoryIsNotFound) {
  const std::string path = Path("no/such/dir/p.sqlite");
  auto writer = ProfileWriter::Create(path);
  EXPECT_EQ(writer.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(writer.status().message(), HasSubstr(path));
  absl::Status saved = SaveProfile(FullProfile(), path);
  EXPECT_EQ(saved.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(saved.message(), HasSubstr(path));
}

TEST_F(StoreTest, CreateInUnwritablePlaceFails) {
  for (const std::string path : {"/proc/x/y.sqlite", "/proc/self/cuscope.sqlite",
                                 "/proc/version/x.sqlite"}) {
    auto writer = ProfileWriter::Create(path);
    EXPECT_FALSE(writer.ok()) << path;
    EXPECT_THAT(writer.status().message(), HasSubstr(path));
  }
  // A directory where the file should go.
  auto writer = ProfileWriter::Create(dir_);
  EXPECT_FALSE(writer.ok());
  EXPECT_THAT(writer.status().message(), HasSubstr(dir_));
}

// Damaged rows, as a user editing the file could make them: errors naming the
// table and column, never a crash or a silently wrong profile.
TEST_F(StoreTest, DamagedRowsAreDataLoss) {
  const std::string good = Path("good.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), good).ok());
  const struct {
    const char* sql;
    const char* expected_in_message;
  } cases[] = {
      {"UPDATE kernels SET stream_id = -1", "stream_id"},
      {"UPDATE kernels SET stream_id = 4294967296", "stream_id"},
      {"UPDATE kernels SET name_id = 999", "name_id"},
      {"UPDATE kernels SET grid_x = 'lots'", "grid_x"},
      {"UPDATE memcpy SET kind = 99", "kind"},
      {"UPDATE memset SET memory_kind = -1", "memory_kind"},
      {"UPDATE api_calls SET return_value = 3000000000", "return_value"},
      {"UPDATE syncs SET type = 3.5", "type"},
      {"UPDATE ranges SET source = 'scope'", "source"},
      {"UPDATE devices SET name = x'00ff'", "name"},
      {"UPDATE devices SET sm_count = 1e30", "sm_count"},
      {"UPDATE overheads SET kind_id = 1000000", "kind_id"},
      {"DELETE FROM strings WHERE id = 2", "strings"},
      {"DELETE FROM strings WHERE id = 0", "strings"},
      {"UPDATE strings SET text = 'x' WHERE id = 0", "strings"},
      {"UPDATE meta SET value = 'many' WHERE key = 'pid'", "pid"},
      {"DELETE FROM meta WHERE key = 'schema_version'", "schema_version"},
      {"DROP TABLE overheads", "overheads"},
      {"ALTER TABLE kernels DROP COLUMN flags", "flags"},
      {"UPDATE counter_sets SET strategy = 3", "strategy"},
      {"UPDATE counter_sets SET strategy = -1", "strategy"},
      {"UPDATE counter_sets SET name_id = 999", "name_id"},
      {"UPDATE counter_sets SET passes = 1.5", "passes"},
      {"UPDATE counter_sets SET block_z = 'wide'", "block_z"},
      {"UPDATE counter_launches SET set_id = 99 WHERE rowid = 2",
       "counter_launches row 2: column set_id holds '99'"},
      {"UPDATE counter_launches SET correlation_id = -1", "correlation_id"},
      {"UPDATE counter_values SET set_id = 0 WHERE rowid = 3",
       "counter_values row 3: column set_id holds '0'"},
      {"UPDATE counter_values SET set_id = 'one'", "set_id"},
      {"UPDATE counter_values SET metric_id = 999", "metric_id"},
      {"UPDATE counter_values SET value = 'lots'", "value"},
      {"UPDATE device_metrics SET value = x'00ff'", "value"},
      {"UPDATE device_metrics SET metric_id = -2", "metric_id"},
      {"UPDATE device_metrics SET device_id = 4294967296", "device_id"},
      {"DELETE FROM counter_sets WHERE id = 1", "set_id"},
      {"DROP TABLE counter_values", "counter_values"},
      {"DROP VIEW device_metrics_named; ALTER TABLE device_metrics DROP COLUMN value",
       "value"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string path = Path(absl::StrCat("damaged", i++, ".sqlite"));
    std::filesystem::copy_file(good, path);
    Exec(path, c.sql);
    absl::StatusOr<Profile> loaded = LoadProfile(path);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << c.sql;
    EXPECT_THAT(loaded.status().message(), HasSubstr(path)) << c.sql;
    EXPECT_THAT(loaded.status().message(), HasSubstr(c.expected_in_message)) << c.sql;
  }
}

// Bytes damaged below SQLite's level: zeroed blocks, random bytes, truncation. A
// result or an error is fine; a crash or a hang is not (run it under ASan too).
TEST_F(StoreTest, CorruptedFilesNeverCrash) {
  testing::ProfileBuilder b;
  for (int i = 0; i < 3000; ++i) {
    b.Kernel(absl::StrCat("kernel_", i % 97), 1000 * i, 1000 * i + 500);
    b.Api(absl::StrCat("cudaApi", i % 13), 1000 * i, 1000 * i + 50, i);
    if (i % 10 == 0) b.Range(absl::StrCat("range ", i), 1000 * i, 1000 * i + 9000, i % 4);
  }
  const std::string good = Path("good.sqlite");
  ASSERT_TRUE(SaveProfile(b.Take(), good).ok());
  const std::string bytes = ReadFile(good);
  ASSERT_GT(bytes.size(), 64u * 1024);

  std::mt19937 rng(42);
  int ok = 0, errors = 0;
  auto check = [&](const std::string& damaged, const std::string& what) {
    const std::string path = Path("damaged.sqlite");
    WriteFile(path, damaged);
    absl::StatusOr<Profile> loaded = LoadProfile(path);
    if (loaded.ok()) {
      ++ok;
    } else {
      ++errors;
      EXPECT_THAT(loaded.status().message(), HasSubstr(path)) << what;
    }
  };
  // Zeroed blocks at page boundaries and in the middle of pages, header included.
  for (size_t offset = 0; offset < bytes.size(); offset += 4096 * 3 + 1000) {
    std::string damaged = bytes;
    size_t n = std::min<size_t>(2048, bytes.size() - offset);
    std::fill_n(damaged.begin() + offset, n, '\0');
    check(damaged, absl::StrCat("zeroed at ", offset));
  }
  // Random bytes flipped.
  for (int round = 0; round < 40; ++round) {
    std::string damaged = bytes;
    for (int j = 0; j < 16; ++j) damaged[rng() % damaged.size()] = static_cast<char>(rng());
    check(damaged, absl::StrCat("random round ", round));
  }
  // Truncated.
  for (size_t size : {size_t{10}, size_t{100}, size_t{4096}, size_t{4097}, bytes.size() / 2,
                      bytes.size() - 4096, bytes.size() - 1}) {
    check(bytes.substr(0, size), absl::StrCat("truncated to ", size));
  }
  EXPECT_GT(errors, 0);
  std::cout << "corrupted files: " << ok << " loaded, " << errors << " errors\n";
}

}  // namespace
}  // namespace cuscope::model
