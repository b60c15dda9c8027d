// Tests of writing the profile file (lib/store): round trips, incremental
// appends, crash survival, and the file's views and enum names.
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
#include "lib/model/enum_names.h"
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
    b.Kernel(absl::StrCat("kernel_", i % 37), kAbove32 + 10 * i, kAbove32 + 10 * i + 5, i % 5);
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
  first.notes.other = {{"only_in_first", "1"}, {"both", "a"}};
  first.notes.counters_chip = "GH100";
  first.notes.settings = {{"trace", "all"}};
  ASSERT_TRUE((*writer)->WriteRunInfo(first).ok());
  RunInfo second;
  second.command_line = "second";
  second.exit_reason = "exit";
  second.notes.other = {{"both", "b"}};
  second.notes.world_size = 2;
  ASSERT_TRUE((*writer)->WriteRunInfo(second).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->run == second);
  EXPECT_EQ(loaded->run.notes, second.notes);
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
                           "counters_named", "device_metrics_named", "source_locations_named"}) {
    EXPECT_GT(QueryInt(path, absl::StrCat("SELECT count(*) FROM ", view)), 0) << view;
  }
  EXPECT_EQ(QueryInt(path,
                     "SELECT count(*) FROM kernels_named WHERE name LIKE 'void gemm%' "
                     "AND duration_ns = 100"),
            1);
  EXPECT_EQ(QueryInt(path,
                     "SELECT count(*) FROM memcpy_named WHERE kind_name = 'PtoP' AND "
                     "src_kind_name = 'managed_static' AND dst_kind_name = 'pinned'"),
            1);
  EXPECT_EQ(QueryInt(path,
                     "SELECT count(*) FROM api_calls_named WHERE domain_name = 'driver' "
                     "AND name = 'cuLaunchKernel'"),
            1);
  EXPECT_EQ(QueryInt(path,
                     "SELECT count(*) FROM syncs_named "
                     "WHERE type_name = 'cudaDeviceSynchronize'"),
            1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM ranges_named WHERE source_name = 'scope'"), 1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM ranges_named WHERE location_id = 7"), 1);
  EXPECT_EQ(QueryInt(path,
                     "SELECT count(*) FROM source_locations_named WHERE kind_name = 'scope' "
                     "AND file = 'src/model/attention.cc' AND line = 42 "
                     "AND function = 'Attention' AND id = 7"),
            1);
  EXPECT_EQ(QueryInt(path, "SELECT launches FROM kernel_summary LIMIT 1"), 1);
  EXPECT_EQ(QueryInt(path,
                     "SELECT count(*) FROM counters_named WHERE name LIKE 'void gemm%' "
                     "AND metric = 'dram__bytes.sum' AND value = 1e15 "
                     "AND strategy_name = 'region' AND set_id = 1 AND grid_y = 65535"),
            1);
  EXPECT_EQ(QueryText(path, "SELECT metric FROM counters_named LIMIT 1 OFFSET 2"), "zero");
  EXPECT_EQ(QueryInt(path,
                     "SELECT count(*) FROM device_metrics_named "
                     "WHERE metric = 'dram__bytes.sum.peak_sustained' AND value = 2560"),
            1);
  for (CounterStrategy s :
       {CounterStrategy::kRotate, CounterStrategy::kKernelReplay, CounterStrategy::kUserRange}) {
    EXPECT_EQ(QueryText(path, absl::StrCat("SELECT name FROM enum_names WHERE enum = "
                                           "'counter_strategy' AND value = ",
                                           static_cast<int>(s))),
              CounterStrategyName(s));
  }
  EXPECT_EQ(QueryInt(path, "SELECT value FROM meta WHERE key = 'schema_version'"), kSchemaVersion);
  EXPECT_EQ(QueryInt(path, "PRAGMA application_id"), 0x43555350);
}

// The file's enum_names table holds every row of the model's tables, no more.
template <typename E>
void ExpectEnumRowsInFile(const std::string& path) {
  const char* name = EnumNames<E>::kEnum;
  EXPECT_EQ(
      QueryInt(path, absl::StrCat("SELECT count(*) FROM enum_names WHERE enum = '", name, "'")),
      MaxEnumValue<E>() + 1)
      << name;
  for (const EnumNameRow<E>& row : EnumNames<E>::kRows) {
    EXPECT_EQ(QueryText(path, absl::StrCat("SELECT name FROM enum_names WHERE enum = '", name,
                                           "' AND value = ", static_cast<int>(row.value))),
              row.name)
        << name;
  }
}

TEST_F(StoreTest, EnumNamesAreTheModelsTables) {
  const std::string path = Path("enums.sqlite");
  ASSERT_TRUE(SaveProfile(Profile(), path).ok());
  ExpectEnumRowsInFile<MemcpyKind>(path);
  ExpectEnumRowsInFile<MemoryKind>(path);
  ExpectEnumRowsInFile<SyncType>(path);
  ExpectEnumRowsInFile<ApiDomain>(path);
  ExpectEnumRowsInFile<RangeSource>(path);
  ExpectEnumRowsInFile<CounterStrategy>(path);
  ExpectEnumRowsInFile<SourceLocationKind>(path);
  ExpectEnumRowsInFile<OwnKind>(path);
  EXPECT_EQ(QueryInt(path, "SELECT count(DISTINCT enum) FROM enum_names"), 8);
}

}  // namespace
}  // namespace cuscope::model
