// Kernels measured by kernel replay get their times back (lib/store/measured_times.h):
// a GEMM run recorded on the H200 by an earlier version, where CUPTI wrote 0 as the
// start and end of the 20 measured launches. The reader places them in memory (the
// file stays as it is); the writer places them in the file when a profile is closed,
// as it did in the H100 recording of the same GEMMs.
#include <sqlite3.h>

#include <map>
#include <string>

#include "gtest/gtest.h"
#include "lib/model/metrics.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"
#include "tests/test_util.h"
#include "tests/unit/builders.h"

namespace cuscope::store {
namespace {

const std::string kRecorded =
    std::string(CUSCOPE_TEST_DATA_DIR) + "/real/h200-gemm-roofline.sqlite";

// Kernel rows of the file with no times, read with SQLite itself.
int64_t UntimedRows(const std::string& path) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM kernels WHERE start_ns = 0", -1, &st,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

// Every placed kernel ends with its launch's API call and lasts its measured duration;
// returns how many were placed.
int CheckPlaced(const model::Profile& p) {
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> api;  // correlation id -> span
  for (const model::ApiRecord& a : p.api_calls) {
    auto [it, fresh] = api.emplace(a.correlation_id, std::make_pair(a.start_ns, a.end_ns));
    if (!fresh) {
      it->second.first = std::min(it->second.first, a.start_ns);
      it->second.second = std::max(it->second.second, a.end_ns);
    }
  }
  std::map<uint32_t, double> duration;  // correlation id -> gpu__time_duration.sum
  for (const model::CounterSet& s : p.counters) {
    for (uint32_t id : s.correlation_ids) duration[id] = s.value(p.strings, metrics::kDuration, -1);
  }
  int placed = 0;
  for (const model::KernelRecord& k : p.kernels) {
    EXPECT_NE(k.start_ns, 0u);
    if (!(k.flags & model::kKernelTimePlaced)) continue;
    ++placed;
    EXPECT_TRUE(k.flags & model::kKernelCountersMeasured);
    if (!api.count(k.correlation_id) || !duration.count(k.correlation_id)) {
      ADD_FAILURE() << "no API call or duration for launch " << k.correlation_id;
      continue;
    }
    EXPECT_EQ(k.end_ns, api[k.correlation_id].second);
    EXPECT_GE(k.start_ns, api[k.correlation_id].first);
    EXPECT_NEAR(static_cast<double>(k.duration_ns()), duration[k.correlation_id], 1.0);
  }
  return placed;
}

TEST(MeasuredTimes, TheReaderPlacesThemInMemoryAndLeavesTheFile) {
  ASSERT_EQ(UntimedRows(kRecorded), 20);  // as recorded
  auto loaded = LoadProfile(kRecorded);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(CheckPlaced(*loaded), 20);
  EXPECT_EQ(UntimedRows(kRecorded), 20);  // read-only
}

// Two launches measured by kernel replay whose kernels CUPTI left without times, each
// launch call holding every replayed pass (3 ms against a 50 us kernel), and a set of
// each with or without gpu__time_duration.sum.
model::Profile ReplayedUntimed(bool with_duration) {
  testing::ProfileBuilder b;
  for (uint32_t id : {31u, 32u}) {
    b.Kernel("gemm", 0, 0, 7, id).flags = model::kKernelCountersMeasured;
    const uint64_t call = 1000000ull * id;
    b.Api("cudaLaunchKernel", call, call + 3000000, id);
  }
  b.Kernel("fill", 200000000, 200010000, 7, 40);  // not measured: timed by CUPTI
  b.Api("cudaLaunchKernel", 199000000, 199000010, 40);
  model::Profile& p = b.profile();
  for (uint32_t id : {31u, 32u}) {
    model::CounterSet s;
    s.name = p.strings.Intern("gemm");
    s.grid = {128, 1, 1};
    s.block = {256, 1, 1};
    s.strategy = model::CounterStrategy::kKernelReplay;
    s.passes = 15;
    s.correlation_ids = {id};
    s.values = {{p.strings.Intern("sm__cycles_elapsed.max"), 90000}};
    if (with_duration) s.values.push_back({p.strings.Intern(metrics::kDuration), 50000});
    p.counters.push_back(s);
  }
  return b.Take();
}

// A file whose sets have no gpu__time_duration.sum (an earlier version's custom list,
// as the H200 GEMM recording of 2026-12-01 was): the launch call holds every replayed
// pass, so neither the writer nor the reader places those kernels rather than count
// the whole call as GPU time (6.25 s against 67 ms in that recording).
TEST(MeasuredTimes, NoneArePlacedWithoutAMeasuredDuration) {
  const std::string path = testing_util::TempPath("measured_times_no_duration.sqlite");
  ASSERT_TRUE(SaveProfile(ReplayedUntimed(/*with_duration=*/false), path).ok());
  EXPECT_EQ(UntimedRows(path), 2);  // the writer left them
  auto loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  int64_t still = 0;
  for (const model::KernelRecord& k : loaded->kernels) {
    EXPECT_FALSE(k.flags & model::kKernelTimePlaced);
    still += k.start_ns == 0;
  }
  EXPECT_EQ(still, 2);  // the reader too
  // The same launches with their duration measured: both placed.
  const std::string timed = testing_util::TempPath("measured_times_with_duration.sqlite");
  ASSERT_TRUE(SaveProfile(ReplayedUntimed(/*with_duration=*/true), timed).ok());
  EXPECT_EQ(UntimedRows(timed), 0);
  auto placed = LoadProfile(timed);
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(CheckPlaced(*placed), 2);
}

// The GEMMs of bench/device/gemm_precisions.py 4096,8192 recorded by kernel replay on an
// H100 80GB HBM3 on 2026-12-06 with the current build: the writer placed the 20
// measured launches in the file (none at 0), each ending with its launch call and
// lasting its measured duration.
TEST(MeasuredTimes, TheRecordedH100GemmsWerePlacedByTheWriter) {
  const std::string path =
      std::string(CUSCOPE_TEST_DATA_DIR) + "/real/h100-gemm-tensor-metrics.sqlite";
  EXPECT_EQ(UntimedRows(path), 0);
  auto loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->kernels.size(), 60u);
  EXPECT_EQ(CheckPlaced(*loaded), 20);
}

TEST(MeasuredTimes, TheWriterPlacesThemInTheFile) {
  auto loaded = LoadProfile(kRecorded);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  model::Profile unplaced = *loaded;  // as the run wrote them, before the end
  for (model::KernelRecord& k : unplaced.kernels) {
    if (!(k.flags & model::kKernelTimePlaced)) continue;
    k.start_ns = k.end_ns = 0;
    k.flags &= ~model::kKernelTimePlaced;
  }
  const std::string path = testing_util::TempPath("measured_times.sqlite");
  ASSERT_TRUE(SaveProfile(unplaced, path).ok());
  EXPECT_EQ(UntimedRows(path), 0);
  auto after = LoadProfile(path);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(CheckPlaced(*after), 20);
  // Timed kernels keep their own times.
  for (size_t i = 0; i < loaded->kernels.size(); ++i) {
    EXPECT_EQ(after->kernels[i].start_ns, loaded->kernels[i].start_ns);
    EXPECT_EQ(after->kernels[i].flags, loaded->kernels[i].flags);
  }
}

// Kernels made from their launches (rotate held CUPTI's records off while its set ran):
// placed from the end of the API call (an asynchronous launch), as long as the duration
// of their own sample, else the median of their signature's samples, else the median of
// its launches CUPTI timed outside sets; a signature with neither leaves them untimed.
TEST(MeasuredTimes, KernelsMadeFromTheirLaunchesStartWhenTheCallReturns) {
  testing::ProfileBuilder b;
  auto made = [&](const std::string& name, uint32_t id, uint64_t api_start, uint64_t api_end,
                  uint32_t stream = 7) {
    model::KernelRecord& k = b.Kernel(name, 0, 0, stream, id);
    k.flags = model::kKernelCountersMeasured | model::kKernelFromLaunch;
    b.Api("cudaLaunchKernel", api_start, api_end, id);
  };
  made("gemm", 11, 1000, 1010);    // its own sample: 5,000 ns
  made("gemm", 12, 9000, 9020);    // no sample of its own: the median of gemm's
  made("gemm", 13, 20000, 20005);  // the other gemm sample: 7,000 ns
  made("gemm", 14, 30000, 30010);  // another gemm sample: 6,000 ns
  made("relu", 15, 40000, 40004);  // relu was never sampled, nor timed: untimed
  made("fill", 20, 70000, 70002);  // fill was never sampled: its launches CUPTI timed
  b.Kernel("fill", 80000, 80900, 7, 21);
  b.Kernel("fill", 81000, 82100, 7, 22);
  b.Kernel("fill", 83000, 84000, 7, 23);
  // (a measured kernel CUPTI timed is not a fill's natural duration)
  b.Kernel("fill", 85000, 95000, 7, 24).flags = model::kKernelCountersMeasured;
  // A gemm CUPTI timed, on another stream: gemm's samples come first.
  b.Kernel("gemm", 100000, 100100, 9, 25);
  // A stream runs one kernel at a time: after the kernel before it on the stream.
  made("gemm", 16, 31000, 31005);  // gemm 14 runs until 36,010
  b.Kernel("other", 50000, 60000, 7, 17);
  b.Api("cudaLaunchKernel", 49000, 49010, 17);
  made("gemm", 18, 52000, 52010);                // after CUPTI's "other", until 60,000
  made("gemm", 19, 52000, 52010, /*stream=*/8);  // another stream: when its call returns
  model::Profile& p = b.profile();
  auto set = [&](uint32_t id, double duration) {
    model::CounterSet s;
    s.name = p.strings.Intern("gemm");
    s.grid = {128, 1, 1};
    s.block = {256, 1, 1};
    s.passes = 1;
    s.correlation_ids = {id};
    s.values = {{p.strings.Intern(metrics::kDuration), duration}};
    p.counters.push_back(s);
  };
  set(11, 5000);
  set(13, 7000);
  set(14, 6000);
  const std::string path = testing_util::TempPath("measured_times_from_launch.sqlite");
  ASSERT_TRUE(SaveProfile(b.profile(), path).ok());
  EXPECT_EQ(UntimedRows(path), 1);  // relu
  auto after = LoadProfile(path);
  ASSERT_TRUE(after.ok()) << after.status();
  std::map<uint32_t, model::KernelRecord> by_id;
  for (const model::KernelRecord& k : after->kernels) by_id[k.correlation_id] = k;
  const std::map<uint32_t, std::pair<uint64_t, uint64_t>> want = {
      {11, {1010, 6010}},   {12, {9020, 15020}},  {13, {20005, 27005}}, {14, {30010, 36010}},
      {16, {36010, 42010}}, {18, {60000, 66000}}, {19, {52010, 58010}}, {20, {70002, 71002}}};
  for (const auto& [id, span] : want) {
    EXPECT_EQ(by_id[id].start_ns, span.first) << id;
    EXPECT_EQ(by_id[id].end_ns, span.second) << id;
    EXPECT_TRUE(by_id[id].flags & model::kKernelTimePlaced) << id;
    EXPECT_TRUE(by_id[id].flags & model::kKernelFromLaunch) << id;
  }
  EXPECT_EQ(by_id[15].start_ns, 0u);
  EXPECT_FALSE(by_id[15].flags & model::kKernelTimePlaced);
}

}  // namespace
}  // namespace cuscope::store
