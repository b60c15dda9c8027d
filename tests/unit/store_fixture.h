// Shared by the store tests (store_*_test.cc): a profile with every record kind
// and extreme values, a comparison of profiles, direct SQL on a file, and a
// fixture with a temporary directory.
#ifndef CUSCOPE_TESTS_UNIT_STORE_FIXTURE_H_
#define CUSCOPE_TESTS_UNIT_STORE_FIXTURE_H_

#include <sqlite3.h>
#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lib/model/profile.h"
#include "tests/test_util.h"

namespace cuscope::model {

constexpr uint64_t kAbove32 = (uint64_t{1} << 32) + 12345;
constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();

// A profile in which every record kind is present and every field differs from
// its default, including enums at their last values, integers above 2^32, values
// at the largest the loader accepts (lib/store/meaning.h), and strings with quotes,
// unicode and an embedded NUL.
inline Profile FullProfile() {
  Profile p;
  RunInfo& r = p.run;
  r.command_line = R"(./app --name="x y" 'single' ünïcødé ✓ 日本語)";
  r.pid = 123456789012;
  r.start_unix_ns = 1700000000123456789;
  r.end_unix_ns = 1700000005123456789;
  r.start_ns = kAbove32 + 1;
  r.end_ns = kAbove32 + 1'000'000'000'000;  // records lie in start_ns..end_ns
  r.cuscope_version = "0.1.0-test";
  r.hostname = "gpu-node-07";
  r.rank = 3;
  r.dropped_records = kAbove32 + 2;
  r.buffers_refused = 17;
  r.internal_kernels = 5;
  r.exit_reason = "signal 11";
  r.notes.counters_status = "not permitted: ERR_NVGPUCTRPERM ✓";
  r.notes.counters_passes = 3;
  r.notes.capture_windows = 0;  // a count of 0 is set
  r.notes.world_size = kAbove32;
  r.notes.rank_source = "RANK";
  r.notes.gpu_metrics_left_out = "a; b";
  // In the table's order, not by name: the profile keeps it.
  r.notes.settings = {{"output", "out/%p.sqlite"}, {"buffer_size", "96K"}, {"metrics", ""}};
  // Keys no field declares (a newer version's notes): kept as read.
  r.notes.other = {{"CUDA_VISIBLE_DEVICES", "0,1"},
                   {"quote'key\"", "va\"l'ue"},
                   {"ключ", "значение ✓"},
                   {"", "empty key"},
                   {"empty value", ""},
                   {"counters.later", "a newer counter note"}};

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
  d.core_clock_khz = 0;  // unknown
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
  k.grid = {0x7fffffff, 65535, 3};  // CUDA's largest grid x
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
  y.type = SyncType::kStreamWaitEvent;
  y.stream_id = 13;
  y.correlation_id = 78;
  y.event_id = 5;
  y.event_sync_id = kAbove32 + 3;  // 64 bits
  p.syncs.push_back(y);

  CudaEventRecord ev;
  ev.correlation_id = 70;
  ev.device_id = 1;
  ev.context_id = 4;
  ev.stream_id = 7;
  ev.event_id = 5;
  ev.event_sync_id = kAbove32 + 3;
  p.event_records.push_back(ev);

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
  g.location = 7;
  p.ranges.push_back(g);
  g.source = RangeSource::kNvtxMark;
  g.end_ns = g.start_ns;  // marks have no duration
  g.location = kNoLocation;
  p.ranges.push_back(g);

  SourceLocation at;  // the scope's site
  at.id = 7;
  at.kind = SourceLocationKind::kScope;
  at.file = p.strings.Intern("src/model/attention.cc");
  at.line = 42;
  at.function = p.strings.Intern("Attention");
  p.source_locations.push_back(at);
  at.id = 8;  // a site no range names, with nothing known but its id
  at.file = kEmptyString;
  at.line = 0;
  at.function = kEmptyString;
  p.source_locations.push_back(at);

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
  c.grid = {0x7fffffff, 65535, 3};
  c.block = {1024, 2, 4};
  c.strategy = CounterStrategy::kUserRange;
  c.passes = 4096;
  c.correlation_ids = {kMax32, 0, 7};
  c.values = {{p.strings.Intern("dram__bytes.sum"), 1e15},
              {p.strings.Intern("sm__throughput.avg.pct_of_peak_sustained_elapsed"), 87.25},
              {p.strings.Intern("zero"), 0},
              {p.strings.Intern("tiny"), 1e-300},
              {p.strings.Intern("denormal"), std::numeric_limits<double>::denorm_min()},
              {p.strings.Intern("max"), 1e30},
              {p.strings.Intern("integral above 2^53"), std::ldexp(1.0, 62) + 2048},
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
  dm.device_id = 1023;
  dm.metric = p.strings.Intern("sm__cycles_elapsed.avg.per_second");
  dm.value = 1.755e9 + 0.5;
  p.device_metrics.push_back(dm);

  GpuSampleConfig sc;
  sc.device_id = 3;
  sc.interval_ns = kAbove32;  // 64 bits
  sc.metrics = {p.strings.Intern("gr__cycles_active.avg.pct_of_peak_sustained_elapsed"),
                p.strings.Intern("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
                p.kernels[0].name};  // a string shared with other records
  p.sample_configs.push_back(sc);
  sc.device_id = 1;
  sc.interval_ns = 1;
  sc.metrics = {p.strings.Intern("metric 'quoted' ✓")};
  p.sample_configs.push_back(sc);

  GpuSample gs;
  gs.device_id = 3;
  gs.start_ns = kAbove32 + 100;
  gs.end_ns = kAbove32 + 110;
  gs.values = {0, 1e30, std::numeric_limits<double>::quiet_NaN()};  // NaN: not measured
  p.samples.push_back(gs);
  gs.device_id = 1;                          // devices interleaved
  gs.start_ns = gs.end_ns = kAbove32 + 120;  // no duration
  gs.values = {std::numeric_limits<double>::denorm_min()};
  p.samples.push_back(gs);
  gs.device_id = 3;
  gs.start_ns = kAbove32 + 110;
  gs.end_ns = kAbove32 + 120;
  gs.values = {87.25, std::ldexp(1.0, 62) + 2048, 1.0 / 3};
  p.samples.push_back(gs);

  OwnInterval own;
  own.start_ns = kAbove32 + 200;
  own.end_ns = kAbove32 + 900;
  own.kind = OwnKind::kFlush;  // the last kind
  own.thread_id = kMax32;
  own.device_id = kNoDevice;
  own.context_id = kMax32;
  own.first_correlation_id = 1;
  own.last_correlation_id = kMax32;
  own.launches = kMax32;
  p.own_time.push_back(own);
  own.kind = OwnKind::kKernelReplay;
  own.device_id = 3;
  own.start_ns = own.end_ns = kAbove32 + 150;  // out of time order, no duration
  p.own_time.push_back(own);
  return p;
}

// Samples equal bit for bit (a NaN value equals the same NaN).
inline void ExpectSameSamples(const std::vector<GpuSample>& actual,
                              const std::vector<GpuSample>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const GpuSample& a = actual[i];
    const GpuSample& e = expected[i];
    EXPECT_EQ(a.device_id, e.device_id) << "sample " << i;
    EXPECT_EQ(a.start_ns, e.start_ns) << "sample " << i;
    EXPECT_EQ(a.end_ns, e.end_ns) << "sample " << i;
    ASSERT_EQ(a.values.size(), e.values.size()) << "sample " << i;
    EXPECT_EQ(std::memcmp(a.values.data(), e.values.data(), e.values.size() * sizeof(double)), 0)
        << "sample " << i;
  }
}

inline void ExpectSameProfile(const Profile& actual, const Profile& expected) {
  EXPECT_TRUE(actual.run == expected.run);
  EXPECT_EQ(model::NotesToKeyValues(actual.run.notes), model::NotesToKeyValues(expected.run.notes));
  EXPECT_EQ(actual.run.notes.settings, expected.run.notes.settings);
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
  EXPECT_TRUE(actual.event_records == expected.event_records);
  EXPECT_TRUE(actual.ranges == expected.ranges);
  EXPECT_TRUE(actual.source_locations == expected.source_locations);
  EXPECT_TRUE(actual.overheads == expected.overheads);
  EXPECT_TRUE(actual.counters == expected.counters);
  EXPECT_TRUE(actual.device_metrics == expected.device_metrics);
  EXPECT_TRUE(actual.sample_configs == expected.sample_configs);
  ExpectSameSamples(actual.samples, expected.samples);
  EXPECT_TRUE(actual.own_time == expected.own_time);
  EXPECT_EQ(actual.record_count(), expected.record_count());
}

using testing_util::ReadFile;

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Runs SQL on a file directly, as a user with the sqlite3 shell would.
inline void Exec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error != nullptr ? error : "") << " in " << sql;
  sqlite3_free(error);
  sqlite3_close(db);
}

// The first column of the first row of `sql`, as text ("NULL" for NULL).
inline std::string QueryText(const std::string& path, const std::string& sql) {
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

inline int64_t QueryInt(const std::string& path, const std::string& sql) {
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

}  // namespace cuscope::model

#endif  // CUSCOPE_TESTS_UNIT_STORE_FIXTURE_H_
