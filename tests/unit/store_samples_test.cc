// GPU samples in the profile file (schema version 4): configurations and samples
// appended in batches load back as written, values bit for bit in their BLOB; the
// writer refuses a batch that would make a file the loader refuses; the loader
// refuses damaged sample rows with one line naming the table, row and column.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/model/profile.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"
#include "tests/unit/store_fixture.h"

namespace cuscope::model {
namespace {

using store::LoadProfile;
using store::ProfileWriter;
using store::SaveProfile;
using ::testing::HasSubstr;

constexpr uint64_t kRunStart = 1'000'000'000;

// A batch with run info whose window holds the samples' times.
Profile Batch() {
  Profile p;
  p.run.start_ns = kRunStart;
  return p;
}

GpuSampleConfig Config(Profile& batch, uint32_t device, uint64_t interval, int metrics) {
  GpuSampleConfig c;
  c.device_id = device;
  c.interval_ns = interval;
  for (int i = 0; i < metrics; ++i) {
    c.metrics.push_back(batch.strings.Intern("metric " + std::to_string(i)));
  }
  return c;
}

GpuSample Sample(uint32_t device, uint64_t start, std::vector<double> values) {
  GpuSample s;
  s.device_id = device;
  s.start_ns = kRunStart + start;
  s.end_ns = s.start_ns + 10;
  s.values = std::move(values);
  return s;
}

double Bits(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

class SamplesTest : public StoreTest {
 protected:
  absl::StatusOr<Profile> Load() { return LoadProfile(Path("p.sqlite")); }
  std::unique_ptr<ProfileWriter> Create() {
    absl::StatusOr<std::unique_ptr<ProfileWriter>> w = ProfileWriter::Create(Path("p.sqlite"));
    EXPECT_TRUE(w.ok()) << w.status();
    return w.ok() ? *std::move(w) : nullptr;
  }
  // Saves FullProfile, runs `sql` on the file and loads it: the load's status.
  absl::Status LoadDamaged(const std::string& sql) {
    const std::string path = Path("p.sqlite");
    EXPECT_TRUE(SaveProfile(FullProfile(), path).ok());
    Exec(path, sql);
    return LoadProfile(path).status();
  }
};

// The collector's way: one growing string table, a device's configuration once, in
// the batch of its first samples, then samples in any later batch.
TEST_F(SamplesTest, BatchesLoadBackInOrder) {
  std::unique_ptr<ProfileWriter> w = Create();
  ASSERT_NE(w, nullptr);
  Profile batch = Batch();
  ASSERT_TRUE(w->WriteRunInfo(batch.run).ok());
  Profile expected = batch;
  batch.sample_configs.push_back(Config(batch, 0, 1000, 3));
  batch.samples.push_back(Sample(0, 0, {1, 2, 3}));
  batch.samples.push_back(Sample(0, 10, {4, 5, 6}));
  ASSERT_TRUE(w->Append(batch).ok());
  expected.sample_configs = batch.sample_configs;
  expected.samples = batch.samples;

  batch.ClearRecords();
  batch.samples.push_back(Sample(0, 20, {7, 8, 9}));
  batch.sample_configs.push_back(Config(batch, 1, 250, 1));
  batch.samples.push_back(Sample(1, 20, {0.5}));
  ASSERT_TRUE(w->Append(batch).ok());
  expected.sample_configs.push_back(batch.sample_configs[0]);
  expected.samples.insert(expected.samples.end(), batch.samples.begin(), batch.samples.end());

  batch.ClearRecords();
  batch.samples.push_back(Sample(1, 30, {0.25}));
  ASSERT_TRUE(w->Append(batch).ok());
  expected.samples.push_back(batch.samples[0]);
  ASSERT_TRUE(w->Close().ok());

  absl::StatusOr<Profile> loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->sample_configs == expected.sample_configs);
  ExpectSameSamples(loaded->samples, expected.samples);
  EXPECT_EQ(loaded->work_record_count(), 0u);
  EXPECT_EQ(loaded->record_count(), 2u + 5u);
}

TEST_F(SamplesTest, FullProfileRoundTrips) {
  const Profile full = FullProfile();
  ASSERT_TRUE(SaveProfile(full, Path("p.sqlite")).ok());
  absl::StatusOr<Profile> loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, full);
}

// One row per sample; its values one BLOB of little-endian float64s; one row per
// configured metric, positions 0..n-1.
TEST_F(SamplesTest, RowsAndBlobLayout) {
  Profile p = Batch();
  p.sample_configs.push_back(Config(p, 2, 500, 2));
  const double payload_nan = Bits(0x7ff8000000000123);  // a NaN with a payload
  p.samples.push_back(Sample(2, 0, {1.0, 2.5}));
  p.samples.push_back(Sample(2, 10, {payload_nan, std::numeric_limits<double>::quiet_NaN()}));
  const std::string path = Path("p.sqlite");
  ASSERT_TRUE(SaveProfile(p, path).ok());
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM gpu_samples"), 2);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM gpu_sample_configs"), 2);
  EXPECT_EQ(QueryText(path, "SELECT typeof(metric_values) FROM gpu_samples"), "blob");
  EXPECT_EQ(QueryText(path, "SELECT hex(metric_values) FROM gpu_samples ORDER BY rowid"),
            "000000000000F03F0000000000000440");  // 1.0, 2.5
  EXPECT_EQ(QueryText(path, "SELECT hex(metric_values) FROM gpu_samples WHERE rowid = 2"),
            "230100000000F87F000000000000F87F");
  EXPECT_EQ(QueryText(path,
                      "SELECT group_concat(device_id || ':' || interval_ns || ':' || position "
                      "|| ':' || metric, ' ') FROM gpu_sample_configs_named"),
            "2:500:0:metric 0 2:500:1:metric 1");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameSamples(loaded->samples, p.samples);
}

// What the writer refuses: the batch whole, nothing of it written, and the next
// batch still appends.
TEST_F(SamplesTest, WriterRefusesWhatWouldNotLoad) {
  std::unique_ptr<ProfileWriter> w = Create();
  ASSERT_NE(w, nullptr);
  Profile batch = Batch();
  ASSERT_TRUE(w->WriteRunInfo(batch.run).ok());
  batch.sample_configs.push_back(Config(batch, 0, 1000, 2));
  ASSERT_TRUE(w->Append(batch).ok());
  batch.ClearRecords();

  struct Case {
    const char* what;
    void (*make)(Profile&);
    const char* message;
  } const cases[] = {
      {"no config", [](Profile& b) { b.samples.push_back(Sample(1, 0, {1})); },
       "samples[0] (device 1): the device has no sample configuration"},
      {"wrong count",
       [](Profile& b) {
         b.samples.push_back(Sample(0, 0, {1, 2, 3}));
       },
       "samples[0] (device 0) has 3 values, but its configuration has 2 metrics"},
      {"negative",
       [](Profile& b) {
         b.samples.push_back(Sample(0, 0, {1, -1}));
       },
       "samples[0] (device 0).values[1] is -1, expected NaN or a finite number in [0, 1e+30]"},
      {"infinite",
       [](Profile& b) {
         b.samples.push_back(Sample(0, 0, {1, 2}));
         b.samples.push_back(Sample(0, 0, {std::numeric_limits<double>::infinity(), 2}));
       },
       "samples[1] (device 0).values[0] is inf"},
      {"written twice", [](Profile& b) { b.sample_configs.push_back(Config(b, 0, 1000, 2)); },
       "sample_configs[0] (device 0): the device has a configuration already (written by an "
       "earlier batch)"},
      {"twice in a batch",
       [](Profile& b) {
         b.sample_configs.push_back(Config(b, 1, 1000, 2));
         b.sample_configs.push_back(Config(b, 1, 1000, 2));
       },
       "sample_configs[1] (device 1): the device has a configuration already (earlier in this "
       "batch)"},
      {"no metrics", [](Profile& b) { b.sample_configs.push_back(Config(b, 1, 1000, 0)); },
       "sample_configs[0] (device 1) has no metrics"},
      {"device id", [](Profile& b) { b.sample_configs.push_back(Config(b, 1024, 1000, 1)); },
       "sample_configs[0] (device 1024): device ids are 0 to 1023"},
      {"string id",
       [](Profile& b) {
         GpuSampleConfig c = Config(b, 1, 1000, 1);
         c.metrics.push_back(999);
         b.sample_configs.push_back(c);
       },
       "string id out of range: sample_configs[0] (device 1).metrics[1] is 999"},
  };
  for (const Case& c : cases) {
    c.make(batch);
    batch.kernels.emplace_back();  // refused with the samples
    absl::Status s = w->Append(batch);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.what << ": " << s;
    EXPECT_THAT(s.message(), HasSubstr(c.message)) << c.what;
    EXPECT_THAT(s.message(), HasSubstr(Path("p.sqlite"))) << c.what;
    batch.ClearRecords();
  }
  batch.samples.push_back(Sample(0, 0, {1, std::numeric_limits<double>::quiet_NaN()}));
  ASSERT_TRUE(w->Append(batch).ok());
  ASSERT_TRUE(w->Close().ok());
  absl::StatusOr<Profile> loaded = Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->kernels.size(), 0u);
  EXPECT_EQ(loaded->sample_configs.size(), 1u);
  ExpectSameSamples(loaded->samples, batch.samples);
}

// Damaged sample rows: DataLoss, naming the file, table, row and what is accepted.
TEST_F(SamplesTest, DamagedRowsAreClearErrors) {
  // FullProfile: device 3 has 3 metrics (rows 1-3), device 1 has 1 (row 4); samples:
  // device 3, device 1, device 3.
  struct Case {
    const char* sql;
    const char* message;
  } const cases[] = {
      {"UPDATE gpu_samples SET metric_values = X'0001020304' WHERE rowid = 2",
       "gpu_samples row 2: column metric_values holds a BLOB of 5 bytes, expected 8 bytes (a "
       "little-endian float64) per value"},
      {"UPDATE gpu_samples SET metric_values = zeroblob(16) WHERE rowid = 3",
       "gpu_samples row 3: column metric_values holds a BLOB of 16 bytes, expected 8 x 3 = 24 "
       "bytes (device 3's 3 metrics, as little-endian float64)"},
      {"UPDATE gpu_samples SET metric_values = X'' WHERE rowid = 2",
       "gpu_samples row 2: column metric_values holds a BLOB of 0 bytes, expected 8 x 1 = 8"},
      {"UPDATE gpu_samples SET metric_values = 'text' WHERE rowid = 1",
       "gpu_samples row 1: column metric_values holds 'text', expected a BLOB of little-endian "
       "float64 values"},
      {"DELETE FROM gpu_sample_configs WHERE device_id = 1",
       "gpu_samples row 2: column device_id holds 1, expected a device that gpu_sample_configs "
       "configures"},
      {"UPDATE gpu_samples SET device_id = 7 WHERE rowid = 3",
       "gpu_samples row 3: column device_id holds 7, expected a device that"},
      {"UPDATE gpu_sample_configs SET position = 5 WHERE rowid = 2",
       "gpu_sample_configs row 2: column position holds 5, expected a position in [0, 2] (device "
       "3 has 3 rows): positions are 0..n-1"},
      {"UPDATE gpu_sample_configs SET device_id = 3, position = 3 WHERE rowid = 4",
       "gpu_sample_configs row 4: column interval_ns holds 1, expected 4294979641 (device 3's "
       "interval, from row 1): a device has one configuration"},
      // A second configuration of device 3 (the UNIQUE constraint dropped).
      {"CREATE TABLE c AS SELECT * FROM gpu_sample_configs; DROP VIEW gpu_sample_configs_named;"
       "DROP TABLE gpu_sample_configs; ALTER TABLE c RENAME TO gpu_sample_configs;"
       "INSERT INTO gpu_sample_configs SELECT * FROM gpu_sample_configs WHERE device_id = 3",
       "gpu_sample_configs row 5: column position holds 0, expected a position no other row of "
       "device 3 has (row 1 has it): a device has one configuration, its positions 0..n-1 once "
       "each"},
      {"UPDATE gpu_sample_configs SET metric_id = 9999 WHERE rowid = 1",
       "gpu_sample_configs row 1: column metric_id holds '9999', expected a string id below"},
      {"UPDATE gpu_samples SET end_ns = start_ns - 1 WHERE rowid = 3",
       "gpu_samples row 3: column end_ns holds 4294979750, expected 0 or at least start_ns "
       "(4294979751)"},
      {"UPDATE gpu_samples SET start_ns = 4000000000000000000 WHERE rowid = 1",
       "gpu_samples row 1: column start_ns holds 4000000000000000000, expected 0 or a time "
       "inside the run's window"},
      {"UPDATE gpu_samples SET device_id = 1024 WHERE rowid = 1",
       "gpu_samples row 1: column device_id holds 1024, expected an integer in [0, 1023]"},
      {"UPDATE gpu_samples SET metric_values = X'000000000000F0BF' WHERE rowid = 2",
       "gpu_samples row 2: column metric_values holds -1 at position 0, expected NaN or a finite "
       "number in [0, 1e+30] at every position"},
  };
  for (const Case& c : cases) {
    absl::Status s = LoadDamaged(c.sql);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << c.sql << ": " << s;
    EXPECT_THAT(s.message(), HasSubstr(Path("p.sqlite") + " is damaged: ")) << c.sql;
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.message)) << c.sql;
  }
}

// Many samples, the shape of PM sampling: 8 metrics, every 10 us, two devices.
Profile ManySamples(size_t count) {
  Profile p = Batch();
  p.sample_configs.push_back(Config(p, 0, 10'000, 8));
  p.sample_configs.push_back(Config(p, 1, 10'000, 8));
  p.samples.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    std::vector<double> values(8);
    for (size_t j = 0; j < values.size(); ++j) values[j] = static_cast<double>(i * 8 + j) / 7;
    if (i % 97 == 0) values[i % 8] = std::numeric_limits<double>::quiet_NaN();
    p.samples.push_back(Sample(static_cast<uint32_t>(i % 2), i / 2 * 10'000, std::move(values)));
  }
  return p;
}

TEST_F(SamplesTest, TwoHundredThousandSamplesRoundTrip) {
  const Profile p = ManySamples(200'000);
  const std::string path = Path("p.sqlite");
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(SaveProfile(p, path).ok());
  const auto t1 = std::chrono::steady_clock::now();
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  const auto t2 = std::chrono::steady_clock::now();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->sample_configs == p.sample_configs);
  ExpectSameSamples(loaded->samples, p.samples);
  using ms = std::chrono::duration<double, std::milli>;
  std::printf("200k samples x 8 metrics: save %.0f ms, load %.0f ms, file %lld bytes\n",
              ms(t1 - t0).count(), ms(t2 - t1).count(),
              static_cast<long long>(std::filesystem::file_size(path)));
}

}  // namespace
}  // namespace cuscope::model
