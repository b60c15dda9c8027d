// Profiles of an older schema version (lib/store/older_versions.h): a version-2 file
// (before event records) loads, its syncs without events and no event records; the
// same columns missing from a file that claims the current version are damage.
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

// What version 2 had: no event columns in syncs, no cuda_events table.
constexpr char kToVersion2[] =
    "DROP VIEW syncs_named; ALTER TABLE syncs DROP COLUMN event_id;"
    "ALTER TABLE syncs DROP COLUMN event_sync_id; DROP TABLE cuda_events;"
    "CREATE VIEW syncs_named AS SELECT * FROM syncs;"
    "UPDATE meta SET value = '2' WHERE key = 'schema_version';";

TEST_F(StoreTest, Version2FileLoadsWithoutEvents) {
  const std::string path = Path("v2.sqlite");
  const Profile full = FullProfile();
  ASSERT_TRUE(SaveProfile(full, path).ok());
  Exec(path, kToVersion2);
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  Profile expected = full;
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
  EXPECT_EQ(store::UnreadableVersion(store::kSchemaVersion), "");
  EXPECT_EQ(store::UnreadableVersion(store::kOldestReadableSchemaVersion), "");
  EXPECT_THAT(store::UnreadableVersion(1), HasSubstr("older cuscope"));
}

}  // namespace
}  // namespace cuscope::model
