// Tests of the profile file's errors (lib/store): clear statuses for files that
// are not profiles, of another version, damaged or corrupted, and for places a
// profile cannot be written.
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
  WriteFile(path,
            "These are not the droids you are looking for.\n"
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
  Exec(path,
       "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
       "INSERT INTO users (name) VALUES ('alice');");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr(path + " is not a cuscope profile"));
}

TEST_F(StoreTest, OtherApplicationsMetaTableIsNotAProfile) {
  const std::string path = Path("other_meta.db");
  Exec(path,
       "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
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
  EXPECT_THAT(loaded.status().message(), HasSubstr(absl::StrCat("to ", kSchemaVersion)));
  EXPECT_THAT(loaded.status().message(), HasSubstr("newer cuscope"));
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
  for (const std::string path :
       {"/proc/x/y.sqlite", "/proc/self/cuscope.sqlite", "/proc/version/x.sqlite"}) {
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
      {"DROP VIEW kernel_summary; ALTER TABLE kernels DROP COLUMN flags", "flags"},
      {"UPDATE counter_sets SET strategy = 4", "strategy"},
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
      {"DROP VIEW device_metrics_named; ALTER TABLE device_metrics DROP COLUMN value", "value"},
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
