// Validation of meaning at load time (lib/store/meaning.h) and the loader's other
// defences (issue 14): each test is built from a reproducer of a defect that a
// damaged or hostile profile caused.
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/model/profile.h"
#include "lib/store/reader.h"
#include "lib/store/writer.h"
#include "tests/unit/store_fixture.h"

namespace cuscope::model {
namespace {

using store::LoadProfile;
using ::testing::HasSubstr;
using ::testing::Not;

class StoreMeaningTest : public StoreTest {
 protected:
  // A copy of a valid profile (FullProfile) damaged by `sql`.
  std::string Damaged(const std::string& sql) {
    const std::string path = Path(absl::StrCat("damaged", n_++, ".sqlite"));
    EXPECT_TRUE(store::SaveProfile(FullProfile(), path).ok());
    Exec(path, sql);
    return path;
  }
  // Loads `path` and expects one line of DataLoss containing `what`.
  void ExpectDataLoss(const std::string& path, const std::string& what) {
    absl::StatusOr<Profile> loaded = LoadProfile(path);
    ASSERT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << loaded.status();
    EXPECT_THAT(loaded.status().message(), HasSubstr(what));
    EXPECT_THAT(loaded.status().message(), Not(HasSubstr("\n")));
    EXPECT_LT(loaded.status().message().size(), 400u) << loaded.status();
  }
  int n_ = 0;
};

TEST_F(StoreMeaningTest, ValidProfileLoads) {
  const std::string path = Damaged("SELECT 1");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ExpectSameProfile(*loaded, FullProfile());
}

// Defect 2: a device id of 4294967295 wrapped `id + 1` to 0 in the trace writer
// (SIGSEGV); 2e9 made an 86 KB profile take 15.6 GB.
TEST_F(StoreMeaningTest, HugeDeviceIdsAreDataLoss) {
  ExpectDataLoss(Damaged("UPDATE devices SET id = 4294967295 WHERE rowid = 1"),
                 "devices row 1: column id holds 4294967295, expected an integer in [0, 1023]");
  ExpectDataLoss(Damaged("UPDATE devices SET id = 2000000000 WHERE rowid = 2"),
                 "devices row 2: column id holds 2000000000");
  ExpectDataLoss(Damaged("UPDATE kernels SET device_id = 4000000000 WHERE rowid = 2"),
                 "kernels row 2: column device_id holds 4000000000");
  ExpectDataLoss(Damaged("UPDATE memcpy SET dst_device_id = 70000"),
                 "memcpy row 1: column dst_device_id");
  ExpectDataLoss(Damaged("UPDATE counter_sets SET device_id = 5000"), "column device_id");
  ExpectDataLoss(Damaged("UPDATE device_metrics SET device_id = 5000"), "column device_id");
}

TEST_F(StoreMeaningTest, DuplicateDeviceIdsAreDataLoss) {
  // The file's UNIQUE index stops an UPDATE; a table rebuilt without it does not.
  ExpectDataLoss(Damaged("CREATE TABLE t AS SELECT * FROM devices; DROP TABLE devices;"
                         "CREATE TABLE devices AS SELECT * FROM t; UPDATE devices SET id = 3"),
                 "devices row 2: column id holds 3, expected an id no other row has (row 1");
}

// Defect 3: warp_size 2^30 or INT_MAX overflowed an int in the theoretical
// occupancy, then divided by zero (SIGFPE).
TEST_F(StoreMeaningTest, ImplausibleDevicePropertiesAreDataLoss) {
  ExpectDataLoss(Damaged("UPDATE devices SET warp_size = 1073741824"),
                 "column warp_size holds 1073741824, expected 0 (unknown) or a power of two");
  ExpectDataLoss(Damaged("UPDATE devices SET warp_size = 2147483647"), "column warp_size");
  ExpectDataLoss(Damaged("UPDATE devices SET warp_size = 48"), "column warp_size holds 48");
  ExpectDataLoss(Damaged("UPDATE devices SET warp_size = -32"), "column warp_size holds -32");
  ExpectDataLoss(Damaged("UPDATE devices SET sm_count = 2147483647"), "column sm_count");
  ExpectDataLoss(Damaged("UPDATE devices SET max_warps_per_sm = 2147483647"),
                 "column max_warps_per_sm");
  ExpectDataLoss(Damaged("UPDATE devices SET global_memory_bytes = -1"),
                 "column global_memory_bytes holds -1");
  ExpectDataLoss(Damaged("UPDATE devices SET core_clock_khz = 9000000000000"),
                 "column core_clock_khz");
  ExpectDataLoss(Damaged("UPDATE kernels SET block_x = 100000"), "column block_x");
  ExpectDataLoss(Damaged("UPDATE kernels SET grid_y = 4294967295"), "column grid_y");
  ExpectDataLoss(Damaged("UPDATE kernels SET registers_per_thread = 70000"),
                 "column registers_per_thread");
  ExpectDataLoss(Damaged("UPDATE memcpy SET bytes = -5"), "memcpy row 1: column bytes holds");
  ExpectDataLoss(Damaged("UPDATE counter_sets SET passes = 4294967295"), "column passes");
}

// Defect 6: times that wrap (negative in the file, huge as uint64) or lie outside
// the run made totals wrap (Time % 1548.0 on every row).
TEST_F(StoreMeaningTest, TimesOutsideTheRunOrBackwardsAreDataLoss) {
  ExpectDataLoss(Damaged("UPDATE kernels SET end_ns = start_ns - 1 WHERE rowid = 1"),
                 "kernels row 1: column end_ns holds");
  ExpectDataLoss(Damaged("UPDATE api_calls SET start_ns = -5"),
                 "api_calls row 1: column start_ns holds -5, expected 0 or a time inside the "
                 "run's window");
  ExpectDataLoss(Damaged("UPDATE memset SET end_ns = 9223372036854775807"),
                 "memset row 1: column end_ns");
  ExpectDataLoss(Damaged("UPDATE ranges SET start_ns = 5000000000000 WHERE rowid = 2"),
                 "ranges row 2: column start_ns holds 5000000000000");
  ExpectDataLoss(Damaged("UPDATE meta SET value = '5' WHERE key = 'end_ns'"),
                 "meta key 'end_ns' holds '5', expected 0 (running) or at least start_ns");
  ExpectDataLoss(Damaged("UPDATE meta SET value = '18446744073709551615' WHERE key = 'end_ns'"),
                 "meta key 'end_ns'");
}

TEST_F(StoreMeaningTest, TimesThatAreZeroOrWithinTheSlackLoad) {
  // Zero: not recorded (kernel replay, a record cut short); 9 minutes after the end:
  // within the stated slack.
  const std::string path = Damaged(
      "UPDATE kernels SET start_ns = 0, end_ns = 0, flags = 0 WHERE rowid = 1;"
      "UPDATE api_calls SET end_ns = 0 WHERE rowid = 1;"
      "UPDATE syncs SET end_ns = (SELECT value FROM meta WHERE key = 'end_ns') + 540000000000");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->kernels[0].start_ns, 0u);
  ExpectDataLoss(Damaged("UPDATE syncs SET end_ns = (SELECT value FROM meta WHERE key = "
                         "'end_ns') + 660000000000"),
                 "syncs row 1: column end_ns");
}

TEST_F(StoreMeaningTest, CounterSetIdsOutOfOrderAreDataLoss) {
  // The loader finds sets by binary search over ids in row order.
  ExpectDataLoss(Damaged("CREATE TABLE t AS SELECT * FROM counter_sets;"
                         "DROP TABLE counter_sets;"
                         "CREATE TABLE counter_sets AS SELECT * FROM t ORDER BY id DESC;"),
                 "counter_sets row 2: column id holds 1, expected an id above");
}

// Defect 7: invalid UTF-8 in names passed into JSON, which then failed to parse.
TEST_F(StoreMeaningTest, InvalidUtf8IsReplaced) {
  const std::string path = Damaged(
      "UPDATE strings SET text = CAST(x'41FF42C0AF43' AS TEXT) WHERE text = "
      "'cuLaunchKernel';"
      "UPDATE devices SET name = CAST(x'EDA080' AS TEXT) WHERE rowid = 1;"
      "UPDATE meta SET value = CAST(x'E282' AS TEXT) WHERE key = 'hostname'");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->str(loaded->api_calls[0].name),
            "A\xEF\xBF\xBD"
            "B\xEF\xBF\xBD\xEF\xBF\xBD"
            "C");
  EXPECT_EQ(loaded->devices[0].name, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(loaded->run.hostname, "\xEF\xBF\xBD\xEF\xBF\xBD");
}

// Defect 7: meta values were echoed unescaped: a newline split the one line, and a
// 1 MB value made a 1 MB line.
TEST_F(StoreMeaningTest, ValuesInErrorsAreQuotedAndCut) {
  ExpectDataLoss(Damaged("UPDATE meta SET value = '12' || char(10) || 'x' WHERE key = 'pid'"),
                 "meta key 'pid' holds '12\\nx', expected an integer");
  ExpectDataLoss(Damaged("UPDATE meta SET value = '7' || zeroblob(1000000) WHERE key = 'rank'"),
                 "(1000001 bytes)");
  ExpectDataLoss(Damaged("UPDATE kernels SET grid_x = 'a' || char(13) || printf('%.999999c', 'b')"),
                 "column grid_x holds 'a\\rbbb");
  const std::string other = Damaged(
      "UPDATE meta SET value = 'x' || char(10) || "
      "printf('%.999999c', 'y') WHERE key = 'format'");
  absl::StatusOr<Profile> loaded = LoadProfile(other);
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr("its format is 'x\\nyyy"));
  EXPECT_LT(loaded.status().message().size(), 400u);
}

// Found by the fuzzer: SQLite's message about a damaged schema quotes it, newlines
// and all; the error stays one line.
TEST_F(StoreMeaningTest, DamagedSchemaIsOneLine) {
  ExpectDataLoss(Damaged("PRAGMA writable_schema = ON;"
                         "UPDATE sqlite_master SET sql = 'CREATE TABLE kernels (' || char(10) ||"
                         " '  x INTEGER,' || char(10) || ' `' WHERE name = 'kernels'"),
                 "malformed database schema");
}

// Defect 5: a FIFO given as the profile blocked `report` and `diff` forever.
TEST_F(StoreMeaningTest, FifoIsRefusedAtOnce) {
  const std::string fifo = Path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    alarm(10);  // a load that blocks dies by SIGALRM
    absl::StatusOr<Profile> loaded = LoadProfile(fifo);
    const bool refused =
        loaded.status().code() == absl::StatusCode::kInvalidArgument &&
        absl::StrContains(loaded.status().message(), "it is a FIFO, not a regular file");
    _exit(refused ? 0 : 1);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  EXPECT_TRUE(WIFEXITED(wstatus)) << "the load blocked (killed by signal "
                                  << (WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(wstatus), 0);
  absl::StatusOr<Profile> dev = LoadProfile("/dev/null");
  EXPECT_EQ(dev.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(dev.status().message(), HasSubstr("a character device"));
}

// Leaves a hot journal beside `path`: a writer died inside a transaction.
void DieInsideTransaction(const std::string& path) {
  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) _exit(2);
    const char* sql =
        "PRAGMA cache_size=10; BEGIN;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) "
        "INSERT INTO overheads SELECT 0, 0, 0, i, i FROM n;";
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) _exit(3);
    _exit(0);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
  ASSERT_TRUE(std::filesystem::exists(path + "-journal"));
}

// Defect 8: a read-only profile with a leftover journal could not be read by a
// non-root user: the private copy kept mode 0444, so SQLite could not roll it back.
// As root the load runs in a child that drops to user nobody.
TEST_F(StoreMeaningTest, ReadOnlyProfileWithHotJournalLoadsForNonRoot) {
  const std::string path = Path("readonly.sqlite");
  ASSERT_TRUE(store::SaveProfile(FullProfile(), path).ok());
  DieInsideTransaction(path);
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(chmod((path + "-journal").c_str(), 0444), 0);
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
    setenv("TMPDIR", "/tmp", 1);
    absl::StatusOr<Profile> loaded = LoadProfile(path);
    if (!loaded.ok()) {
      fprintf(stderr, "%s\n", std::string(loaded.status().message()).c_str());
      _exit(1);
    }
    _exit(loaded->overheads.size() == FullProfile().overheads.size() ? 0 : 3);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ(WEXITSTATUS(wstatus), 0);
}

}  // namespace
}  // namespace cuscope::model
