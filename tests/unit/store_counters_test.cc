// Tests of the profile file's counter tables (lib/store): counter sets and device
// metrics round trip, across batches, with non-finite values and bad string ids.
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
#include "tests/unit/store_fixture.h"

namespace cuscope::model {
namespace {

using store::kSchemaVersion;
using store::LoadProfile;
using store::ProfileWriter;
using store::SaveProfile;
using ::testing::HasSubstr;

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
  p.counters.push_back(MakeSet(p, "empty", CounterStrategy::kSweep, {}, {}));  // every strategy
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
  EXPECT_EQ(QueryInt(path,
                     "SELECT group_concat(correlation_id) = '20,21,22' FROM "
                     "counter_launches WHERE set_id = 2"),
            1);
  EXPECT_EQ(QueryText(path, "SELECT typeof(value) FROM counter_values LIMIT 1"), "real");
}

// SQLite stores a NaN as NULL: a NaN value (not measured) is saved as NULL and
// loads as NaN; -0.0 loads as 0.0.
TEST_F(StoreTest, NaNCounterValuesAreNull) {
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  Profile p;
  p.counters.push_back(MakeSet(p, "k", CounterStrategy::kRotate, {1},
                               {{"nan", kNaN}, {"-nan", -kNaN}, {"-0", -0.0}, {"one", 1}}));
  DeviceMetric m;
  m.metric = p.strings.Intern("nan peak");
  m.value = kNaN;
  p.device_metrics.push_back(m);
  const std::string path = Path("nonfinite.sqlite");
  ASSERT_TRUE(SaveProfile(p, path).ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->counters.size(), 1u);
  const auto& values = loaded->counters[0].values;
  ASSERT_EQ(values.size(), 4u);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i].first, p.counters[0].values[i].first) << i;
  }
  EXPECT_TRUE(std::isnan(values[0].second));
  EXPECT_TRUE(std::isnan(values[1].second));
  EXPECT_EQ(values[2].second, 0.0);
  EXPECT_EQ(values[3].second, 1.0);
  ASSERT_EQ(loaded->device_metrics.size(), 1u);
  EXPECT_TRUE(std::isnan(loaded->device_metrics[0].value));
  // In SQL: NULL, so aggregates skip it.
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM counters_named WHERE value IS NULL"), 2);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM device_metrics WHERE value IS NULL"), 1);
}

// Issue 14, defect 6: negative, infinite and absurdly large counter values were
// loaded and printed as -1 and inf. They are damage: one line naming the row.
TEST_F(StoreTest, NegativeInfiniteOrHugeCounterValuesAreDataLoss) {
  const double kInf = std::numeric_limits<double>::infinity();
  for (double bad : {-1.0, -0.1, kInf, -kInf, 1e308, std::numeric_limits<double>::max()}) {
    Profile p;
    p.counters.push_back(
        MakeSet(p, "k", CounterStrategy::kRotate, {1}, {{"one", 1}, {"bad", bad}}));
    const std::string path = Path("bad-value.sqlite");
    ASSERT_TRUE(SaveProfile(p, path).ok());
    absl::StatusOr<Profile> loaded = LoadProfile(path);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << bad;
    EXPECT_THAT(loaded.status().message(),
                ::testing::HasSubstr("counter_values row 2: column value holds"))
        << bad;

    Profile q;
    DeviceMetric m;
    m.metric = q.strings.Intern("peak");
    m.value = bad;
    q.device_metrics.push_back(m);
    ASSERT_TRUE(SaveProfile(q, path).ok());
    loaded = LoadProfile(path);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << bad;
    EXPECT_THAT(loaded.status().message(),
                ::testing::HasSubstr("device_metrics row 1: column value holds"))
        << bad;
  }
}

TEST_F(StoreTest, DeviceMetricsRoundTrip) {
  Profile p;
  for (uint32_t device : {1u, 0u}) {
    for (const auto& [metric, value] :
         std::vector<std::pair<std::string, double>>{{"dram__bytes.sum.peak_sustained", 2560},
                                                     {"sm__cycles_elapsed.avg.per_second", 1.755e9},
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
      EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("counters[", bad.counters.size() - 1,
                                                           "].values[1].metric_id is 99999")));
    }
    for (StringId id = static_cast<StringId>(expected.strings.size());
         id < collector.strings.size(); ++id) {
      expected.strings.AppendUnchecked(collector.strings.Get(id));
    }
    expected.counters.insert(expected.counters.end(), collector.counters.begin(),
                             collector.counters.end());
    expected.device_metrics.insert(expected.device_metrics.end(), collector.device_metrics.begin(),
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
  // Usable times (a start of 0 is unusable: kernel_summary, as the report, leaves it out).
  for (int i = 1; i <= 3; ++i) b.Kernel("gemm", 1000 * i, 1000 * i + 500);
  b.Kernel("copy", 5000, 5100);
  b.Kernel("gemm_other", 6000, 6050);
  Profile p = b.Take();
  p.counters.push_back(MakeSet(p, "gemm", CounterStrategy::kRotate, {1, 2},
                               {{"dram__bytes.sum", 1e6}, {"gpu__time_duration.sum", 400}}));
  p.counters.push_back(MakeSet(p, "gemm", CounterStrategy::kKernelReplay, {3},
                               {{"gpu__time_duration.sum", 600}, {"dram__bytes.sum", 3e6}}));
  // A region of the same name is not a kernel measurement.
  p.counters.push_back(
      MakeSet(p, "gemm", CounterStrategy::kUserRange, {}, {{"dram__bytes.sum", 1e12}}));
  p.counters.push_back(
      MakeSet(p, "gemm_other", CounterStrategy::kRotate, {5}, {{"lts__t_bytes.sum", 7}}));
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
  Exec(path,
       "DROP VIEW counters_named; DROP VIEW device_metrics_named;"
       "DROP TABLE counter_values; DROP TABLE counter_launches; DROP TABLE counter_sets;"
       "DROP TABLE device_metrics; DELETE FROM enum_names WHERE enum = 'counter_strategy';"
       "UPDATE meta SET value = '1' WHERE key = 'schema_version';");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path));
  EXPECT_THAT(loaded.status().message(), HasSubstr("schema version 1,"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("reads versions 2 to 8"));
  EXPECT_THAT(loaded.status().message(), HasSubstr("older cuscope"));
  EXPECT_EQ(kSchemaVersion, 8);
}

}  // namespace
}  // namespace cuscope::model
