// Profiles of an older schema version (lib/store/older_versions.h): a version-5 file
// (before own time) loads with no own intervals, a version-4 file (before source
// locations) also with regions of no location, a version-3 file
// (before GPU samples) also without samples, a version-2 file (before event records)
// also with its syncs without events and no event records; the same columns or
// tables missing from a file that claims the current version are damage.
#include <string>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/model/profile.h"
#include "lib/store/older_versions.h"
#include "lib/store/reader.h"
#include "lib/store/schema.h"
#include "lib/store/writer.h"
#include "tests/unit/store_fixture.h"

namespace cuscope::model {
namespace {

using store::LoadProfile;
using store::SaveProfile;
using ::testing::HasSubstr;

// What version 5 had: no own time.
constexpr char kToVersion5[] =
    "DROP VIEW own_time_named; DROP TABLE own_time;"
    "DELETE FROM enum_names WHERE enum = 'own_kind';"
    "UPDATE meta SET value = '5' WHERE key = 'schema_version';";

// What version 4 had besides: no source locations.
constexpr char kToVersion4[] =
    "DROP VIEW source_locations_named; DROP TABLE source_locations;"
    "DELETE FROM enum_names WHERE enum = 'source_location_kind';"
    "DROP VIEW ranges_named; ALTER TABLE ranges DROP COLUMN location_id;"
    "CREATE VIEW ranges_named AS SELECT * FROM ranges;"
    "UPDATE meta SET value = '4' WHERE key = 'schema_version';";

// A profile as a file of version 4 loads it: no locations, and no region has one (and
// no own time, as in version 5).
Profile WithoutLocations(Profile p) {
  p.own_time.clear();
  p.source_locations.clear();
  for (RangeRecord& r : p.ranges) r.location = kNoLocation;
  return p;
}

// What version 3 had besides: no GPU sample tables.
constexpr char kToVersion3[] =
    "DROP VIEW gpu_sample_configs_named; DROP TABLE gpu_sample_configs;"
    "DROP TABLE gpu_samples;"
    "UPDATE meta SET value = '3' WHERE key = 'schema_version';";

// What version 2 had besides: no event columns in syncs, no cuda_events table.
constexpr char kToVersion2[] =
    "DROP VIEW syncs_named; ALTER TABLE syncs DROP COLUMN event_id;"
    "ALTER TABLE syncs DROP COLUMN event_sync_id; DROP TABLE cuda_events;"
    "CREATE VIEW syncs_named AS SELECT * FROM syncs;"
    "UPDATE meta SET value = '2' WHERE key = 'schema_version';";

TEST_F(StoreTest, Version5FileLoadsWithoutOwnTime) {
  const std::string path = Path("v5.sqlite");
  const Profile full = FullProfile();
  ASSERT_FALSE(full.own_time.empty());
  ASSERT_TRUE(SaveProfile(full, path).ok());
  Exec(path, kToVersion5);
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Profile expected = full;
  expected.own_time.clear();
  ExpectSameProfile(*loaded, expected);
}

TEST_F(StoreTest, CurrentVersionMissingTheOwnTimeTableIsDamaged) {
  const std::string path = Path("v6-missing.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  Exec(path, "DROP VIEW own_time_named; DROP TABLE own_time;");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
  EXPECT_THAT(loaded.status().message(), HasSubstr("own_time"));
}

TEST_F(StoreTest, Version4FileLoadsWithoutLocations) {
  const std::string path = Path("v4.sqlite");
  const Profile full = FullProfile();
  ASSERT_FALSE(full.source_locations.empty());
  ASSERT_NE(full.ranges[0].location, kNoLocation);
  ASSERT_TRUE(SaveProfile(full, path).ok());
  Exec(path, std::string(kToVersion5) + kToVersion4);
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, WithoutLocations(full));
}

TEST_F(StoreTest, CurrentVersionMissingTheLocationsTableIsDamaged) {
  const std::string path = Path("v5-missing.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  Exec(path, "DROP VIEW source_locations_named; DROP TABLE source_locations;");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
  EXPECT_THAT(loaded.status().message(), HasSubstr("source_locations"));
}

TEST_F(StoreTest, Version3FileLoadsWithoutSamples) {
  const std::string path = Path("v3.sqlite");
  const Profile full = FullProfile();
  ASSERT_FALSE(full.samples.empty());
  ASSERT_TRUE(SaveProfile(full, path).ok());
  Exec(path, std::string(kToVersion5) + kToVersion4 + kToVersion3);
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Profile expected = WithoutLocations(full);
  expected.sample_configs.clear();
  expected.samples.clear();
  ExpectSameProfile(*loaded, expected);
}

// The recorded profiles of tests/data are of an older version (2): they load, with no
// samples.
TEST(RecordedProfiles, OlderVersionLoadsWithoutSamples) {
  for (const char* name :
       {"h200-timeline-demo.sqlite", "h200-counters-demo.sqlite", "h200-torch-loop.sqlite"}) {
    const std::string path = std::string(CUSCOPE_TEST_DATA_DIR) + "/" + name;
    EXPECT_LT(QueryInt(path,
                       "SELECT CAST(value AS INTEGER) FROM meta "
                       "WHERE key = 'schema_version'"),
              store::kGpuSamplesSince)
        << name;
    absl::StatusOr<Profile> loaded = LoadProfile(path);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_FALSE(loaded->kernels.empty()) << name;
    EXPECT_TRUE(loaded->sample_configs.empty()) << name;
    EXPECT_TRUE(loaded->samples.empty()) << name;
  }
}

TEST_F(StoreTest, CurrentVersionMissingTheSampleTablesIsDamaged) {
  const std::string path = Path("v4-missing.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  Exec(path, "DROP TABLE gpu_samples;");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
  EXPECT_THAT(loaded.status().message(), HasSubstr("gpu_samples"));
}

TEST_F(StoreTest, Version2FileLoadsWithoutEvents) {
  const std::string path = Path("v2.sqlite");
  const Profile full = FullProfile();
  ASSERT_TRUE(SaveProfile(full, path).ok());
  Exec(path, std::string(kToVersion5) + kToVersion4 + kToVersion3 + kToVersion2);
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Profile expected = WithoutLocations(full);
  expected.sample_configs.clear();
  expected.samples.clear();
  expected.event_records.clear();
  for (SyncRecord& s : expected.syncs) {
    s.event_id = kNoCudaEvent;
    s.event_sync_id = kNoEventSyncId;
  }
  ASSERT_GE(expected.syncs.size(), 2u);
  ExpectSameProfile(*loaded, expected);
}

TEST_F(StoreTest, CurrentVersionMissingAColumnIsDamaged) {
  const std::string path = Path("v3-missing.sqlite");
  ASSERT_TRUE(SaveProfile(FullProfile(), path).ok());
  Exec(path, "DROP VIEW syncs_named; ALTER TABLE syncs DROP COLUMN event_sync_id;");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
  EXPECT_THAT(loaded.status().message(), HasSubstr("event_sync_id"));
}

TEST(OlderVersions, DefaultsOfMissingColumns) {
  const std::string sql = store::SelectSqlWithDefaults<SyncRecord>(
      {"start_ns", "end_ns", "type", "context_id", "stream_id", "correlation_id", "process_id",
       "thread_id"});
  EXPECT_THAT(sql, HasSubstr("thread_id, 4294967295 AS event_id, -1 AS event_sync_id FROM syncs"));
  // A BLOB column's default: the empty BLOB (no values).
  EXPECT_THAT(store::SelectSqlWithDefaults<GpuSample>({"device_id", "start_ns", "end_ns"}),
              HasSubstr("end_ns, X'' AS metric_values FROM gpu_samples"));
  EXPECT_EQ(store::UnreadableVersion(store::kSchemaVersion), "");
  EXPECT_EQ(store::UnreadableVersion(store::kOldestReadableSchemaVersion), "");
  EXPECT_THAT(store::UnreadableVersion(1), HasSubstr("older cuscope"));
}

}  // namespace
}  // namespace cuscope::model
