// The run's notes in a profile (lib/store/run_notes_rows.h): typed notes, settings and
// keys this version does not declare round-trip as "extra.*" meta rows; recorded
// profiles and hand-written key/value rows of older versions land in the typed fields.
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "lib/model/profile.h"
#include "lib/model/run_notes.h"
#include "lib/store/reader.h"
#include "lib/store/run_notes_rows.h"
#include "lib/store/writer.h"
#include "tests/unit/store_fixture.h"

namespace cuscope::model {
namespace {

using store::LoadProfile;
using store::SaveProfile;

// Every "extra.*" meta row of a file, as the file holds it.
std::map<std::string, std::string> ExtraRows(const std::string& path) {
  std::map<std::string, std::string> rows;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT key, value FROM meta WHERE key LIKE 'extra.%'", -1,
                               &stmt, nullptr),
            SQLITE_OK);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    rows[reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0))] =
        reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

TEST_F(StoreTest, TypedNotesSettingsAndUnknownKeysRoundTrip) {
  const std::string path = Path("notes.sqlite");
  Profile p;
  RunNotes& n = p.run.notes;
  n.counters_status = "not permitted: ERR_NVGPUCTRPERM";
  n.counters_passes = 7;
  n.counters_launches_measured = 0;  // set: stored as "0"
  n.gpu_metrics_samples = 30000;
  n.counters_log = "decode: ranges from 0; window 1: 4 launches";
  n.scopes_recorded = 12;
  n.local_rank = 1;
  n.rank_source = "OMPI_COMM_WORLD_RANK";
  // The settings table's order (not by name) comes back as written.
  n.settings = {{"trace", "kernel,api"}, {"buffer_size", "96K"}, {"capture", "all"}};
  n.other = {{"counters.window3", "an old verbose note"}, {"launcher", "torchrun"}};
  ASSERT_TRUE(SaveProfile(p, path).ok());

  const std::map<std::string, std::string> rows = ExtraRows(path);
  EXPECT_EQ(rows.at("extra.counters.status"), "not permitted: ERR_NVGPUCTRPERM");
  EXPECT_EQ(rows.at("extra.counters.passes"), "7");
  EXPECT_EQ(rows.at("extra.counters.launches_measured"), "0");
  EXPECT_EQ(rows.at("extra.local_rank"), "1");
  EXPECT_EQ(rows.at("extra.setting.buffer_size"), "96K");
  EXPECT_EQ(rows.at("extra.launcher"), "torchrun");
  EXPECT_EQ(rows.count("extra.counters.chip"), 0u);  // unset: no row
  EXPECT_EQ(rows.size(), 13u);

  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->run.notes, n);
  EXPECT_EQ(loaded->run.notes.settings, n.settings);
  EXPECT_EQ(loaded->run.notes.counters_passes, 7);
  EXPECT_EQ(loaded->run.notes.other.at("counters.window3"), "an old verbose note");
  // Written again, the file holds the same rows.
  const std::string again = Path("again.sqlite");
  ASSERT_TRUE(SaveProfile(*loaded, again).ok());
  EXPECT_EQ(ExtraRows(again), rows);
}

// A profile recorded on the H200 before the notes were declared fields: its key/value
// notes land in the typed fields, and writing it again gives the same rows.
TEST_F(StoreTest, RecordedProfileNotesLandInTypedFields) {
  const std::string recorded = std::string(CUSCOPE_TEST_DATA_DIR) + "/h200-counters-demo.sqlite";
  absl::StatusOr<Profile> p = LoadProfile(recorded);
  ASSERT_TRUE(p.ok()) << p.status();
  const RunNotes& n = p->run.notes;
  EXPECT_EQ(n.counters_chip, "GH100");
  EXPECT_EQ(n.counters_passes, 3);
  EXPECT_EQ(n.counters_strategy, "kernel replay");
  EXPECT_EQ(n.counters_launches_measured, 6);
  EXPECT_EQ(n.counters_samples_complete, 3);
  EXPECT_EQ(n.counters_samples_dropped, 0);
  EXPECT_EQ(n.scopes_recorded, 0);
  EXPECT_TRUE(n.other.empty());
  EXPECT_TRUE(n.settings.empty());
  const std::string copy = Path("copy.sqlite");
  ASSERT_TRUE(SaveProfile(*p, copy).ok());
  EXPECT_EQ(ExtraRows(copy), ExtraRows(recorded));
}

// Rows as older versions wrote them, by hand: the rank's and scopes' keys land in
// their fields; the launchers' names older traces read (WORLD_SIZE, LOCAL_RANK) too,
// unless the current key is there; anything else stays as it was.
TEST_F(StoreTest, OlderKeyValueNotesLandInTypedFields) {
  const std::string path = Path("old.sqlite");
  ASSERT_TRUE(SaveProfile(Profile{}, path).ok());
  Exec(path,
       "INSERT INTO meta VALUES ('extra.rank_source', 'RANK'), ('extra.local_rank', '3'),"
       "('extra.LOCAL_RANK', '9'), ('extra.WORLD_SIZE', '8'), ('extra.scopes_recorded', '12'),"
       "('extra.scopes_dropped', 'many'), ('extra.launcher', 'torchrun'),"
       "('extra.counters.decode2', 'decode: ranges from 4'), ('extra.setting.trace', 'all');");
  absl::StatusOr<Profile> loaded = LoadProfile(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const RunNotes& n = loaded->run.notes;
  EXPECT_EQ(n.rank_source, "RANK");
  EXPECT_EQ(n.local_rank, 3);  // the current key wins over LOCAL_RANK
  EXPECT_EQ(n.world_size, 8);
  EXPECT_EQ(n.scopes_recorded, 12);
  EXPECT_FALSE(n.scopes_dropped.has_value());  // no integer: kept as it was
  EXPECT_EQ(n.other.at("scopes_dropped"), "many");
  EXPECT_EQ(n.other.at("launcher"), "torchrun");
  EXPECT_EQ(n.other.size(), 3u);
  EXPECT_EQ(n.settings, (std::vector<std::pair<std::string, std::string>>{{"trace", "all"}}));
  // A group's notes include the undeclared ones: reports still show old notes.
  auto counters = NotesOfGroup(n, "counters");
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0].first, "decode2");
}

TEST(RunNotesRows, LegacyKeysNameDeclaredNotes) {
  for (const char* old_key : {"WORLD_SIZE", "LOCAL_RANK"}) {
    const std::string_view now = store::LegacyNoteKey(old_key);
    ASSERT_FALSE(now.empty()) << old_key;
    EXPECT_NE(FindRunNote(now), nullptr) << now;
  }
  EXPECT_TRUE(store::LegacyNoteKey("world_size").empty());
}

}  // namespace
}  // namespace cuscope::model
