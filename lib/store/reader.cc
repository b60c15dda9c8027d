// LoadProfile: reads every table of a profile file in one read transaction,
// checking the file's format, version and structure (dense string ids, counter
// rows that name their set, GPU samples that fit their device's configuration)
// and, through RowReader, every value.
#include "lib/store/reader.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "lib/model/utf8.h"
#include "lib/store/load_checks.h"
#include "lib/store/meaning.h"
#include "lib/store/measured_times.h"
#include "lib/store/older_versions.h"
#include "lib/store/profile_path.h"
#include "lib/store/row_reader.h"
#include "lib/store/run_notes_rows.h"
#include "lib/store/sample_rows.h"
#include "lib/store/schema.h"
#include "lib/store/sqlite.h"

namespace cuscope::store {

using model::CounterSet;
using model::Profile;
using model::RunInfo;
using model::StringTable;

namespace {

// Reading one file; the path is the one the user gave (for messages), which may
// differ from the file actually opened (see LoadProfile's recovery path).
class Loader {
 public:
  Loader(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  // `findings_only`: the meta checks and the stored findings, no records.
  absl::StatusOr<Profile> Load(bool findings_only = false) {
    Profile profile;
    // One read transaction: every table comes from the same committed state, even
    // while the profiled program is still appending.
    if (int rc = sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr); rc != SQLITE_OK) {
      return SqlError(rc);
    }
    absl::Status status = findings_only ? LoadMeta(profile.run) : LoadAll(profile);
    if (status.ok() && findings_only) status = LoadFindings(profile.findings);
    if (status.ok() && !findings_only) PlaceMeasuredOnRead(db_, path_, profile.kernels);
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
    if (!status.ok()) return status;
    return profile;
  }

  // True when the file has a hot journal (its writer died inside a transaction)
  // and so needs a rollback that a read-only connection cannot do.
  bool needs_rollback() const { return needs_rollback_; }

 private:
  absl::Status LoadAll(Profile& profile) {
    if (absl::Status s = LoadMeta(profile.run); !s.ok()) return s;
    if (absl::Status s = LoadStrings(profile.strings); !s.ok()) return s;
    size_t n = profile.strings.size();
    if (absl::Status s = LoadTable(profile.devices, n); !s.ok()) return s;
    if (absl::Status s = CheckDeviceIds(profile.devices); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.kernels, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.memcpys, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.memsets, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.api_calls, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.syncs, n); !s.ok()) return s;
    if (file_version_ >= kCudaEventsSince) {
      if (absl::Status s = LoadTable(profile.event_records, n); !s.ok()) return s;
    }
    if (absl::Status s = LoadTable(profile.ranges, n); !s.ok()) return s;
    if (file_version_ >= kSourceLocationsSince) {
      if (absl::Status s = LoadTable(profile.source_locations, n); !s.ok()) return s;
    }
    if (absl::Status s = LoadTable(profile.overheads, n); !s.ok()) return s;
    if (absl::Status s = LoadCounters(profile.counters, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.device_metrics, n); !s.ok()) return s;
    if (file_version_ >= kGpuSamplesSince) {
      if (absl::Status s = LoadSamples(profile, n); !s.ok()) return s;
    }
    if (file_version_ >= kOwnTimeSince) {
      if (absl::Status s = LoadTable(profile.own_time, n); !s.ok()) return s;
    }
    if (file_version_ >= kPcSamplesSince) {
      if (absl::Status s = LoadPcSamples(profile, n); !s.ok()) return s;
    }
    return LoadFindings(profile.findings);
  }

  // PC samples: the tables, then the rule that ties counts and lines to a function.
  absl::Status LoadPcSamples(Profile& profile, size_t n) {
    if (absl::Status s = LoadTable(profile.sampled_functions, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.pc_samples, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.pc_lines, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.source_text, n); !s.ok()) return s;
    if (std::string e = CheckLoadedPcSamples(profile); !e.empty()) return Damaged(e);
    return absl::OkStatus();
  }

  // GPU samples: the configurations from their rows, then the samples, each of a
  // configured device with one value per metric.
  absl::Status LoadSamples(Profile& profile, size_t string_count) {
    std::vector<GpuSampleConfigRow> rows;
    if (absl::Status s = LoadTable(rows, string_count); !s.ok()) return s;
    if (std::string e = SampleConfigsFromRows(rows, profile.sample_configs); !e.empty()) {
      return Damaged(e);
    }
    if (absl::Status s = LoadTable(profile.samples, string_count); !s.ok()) return s;
    if (std::string e = CheckLoadedSamples(profile.sample_configs, profile.samples); !e.empty()) {
      return Damaged(e);
    }
    return absl::OkStatus();
  }

  // The findings tables exist once findings were stored (schema.h): without them,
  // `out` stays nullopt.
  absl::Status LoadFindings(std::optional<std::vector<model::Finding>>& out) {
    absl::StatusOr<Stmt> exists = PrepareRead(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'findings'");
    if (!exists.ok()) return exists.status();
    if (sqlite3_step(exists->get()) != SQLITE_ROW || sqlite3_column_int64(exists->get(), 0) == 0) {
      return absl::OkStatus();
    }
    std::vector<FindingRow> rows;
    std::vector<FindingEvidenceRow> evidence;
    if (absl::Status s = LoadTable(rows, 0); !s.ok()) return s;
    if (absl::Status s = LoadTable(evidence, 0); !s.ok()) return s;
    std::vector<model::Finding> findings;
    if (std::string e = FindingsFromRows(rows, evidence, findings); !e.empty()) return Damaged(e);
    out = std::move(findings);
    return absl::OkStatus();
  }

  // Counter sets: the rows of counter_sets, then their launches and values, each
  // row attached to the set its set_id names (in rowid order: the lists' order).
  absl::Status LoadCounters(std::vector<CounterSet>& out, size_t string_count) {
    std::vector<CounterSetRow> sets;
    if (absl::Status s = LoadTable(sets, string_count); !s.ok()) return s;
    // Selected in rowid order, which is id order: sorted, for binary search.
    std::vector<int64_t> ids;
    ids.reserve(sets.size());
    out.reserve(out.size() + sets.size());
    const size_t first = out.size();
    for (const CounterSetRow& row : sets) {
      if (!ids.empty() && row.id <= ids.back()) {
        return Damaged(absl::StrFormat(
            "counter_sets row %d: column id holds %d, expected an id above the previous "
            "row's (%d): ids are unique and in row order",
            ids.size() + 1, row.id, ids.back()));
      }
      ids.push_back(row.id);
      CounterSet& set = out.emplace_back();
      set.device_id = row.device_id;
      set.name = row.name;
      set.grid = row.grid;
      set.block = row.block;
      set.strategy = row.strategy;
      set.passes = row.passes;
    }
    auto find = [&](int64_t id) -> CounterSet* {
      auto it = std::lower_bound(ids.begin(), ids.end(), id);
      return it != ids.end() && *it == id ? &out[first + (it - ids.begin())] : nullptr;
    };
    auto no_such_set = [&](const char* table, size_t i, int64_t id) {
      return Damaged(absl::StrFormat(
          "%s row %d: column set_id holds '%d', expected the id of a counter_sets row", table,
          i + 1, id));
    };

    std::vector<CounterLaunchRow> launches;
    if (absl::Status s = LoadTable(launches, string_count); !s.ok()) return s;
    for (size_t i = 0; i < launches.size(); ++i) {
      CounterSet* set = find(launches[i].set_id);
      if (set == nullptr) return no_such_set(Table<CounterLaunchRow>::kName, i, launches[i].set_id);
      set->correlation_ids.push_back(launches[i].correlation_id);
    }
    launches = {};

    std::vector<CounterValueRow> values;
    if (absl::Status s = LoadTable(values, string_count); !s.ok()) return s;
    for (size_t i = 0; i < values.size(); ++i) {
      CounterSet* set = find(values[i].set_id);
      if (set == nullptr) return no_such_set(Table<CounterValueRow>::kName, i, values[i].set_id);
      set->values.emplace_back(values[i].metric, values[i].value);
    }
    return absl::OkStatus();
  }

  absl::Status CheckDeviceIds(const std::vector<model::DeviceInfo>& devices) const {
    if (std::string e = DuplicateDeviceId(devices); !e.empty()) return Damaged(e);
    return absl::OkStatus();
  }

  absl::Status NotAProfile(absl::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s is not a cuscope profile (%s)", path_, why));
  }
  absl::Status Damaged(absl::string_view why) const {
    return absl::DataLossError(absl::StrFormat("%s is damaged: %s", path_, why));
  }

  // Maps a failed SQLite call to a status naming the path.
  absl::Status SqlError(int rc) {
    // SQLite's message can quote the schema's text: damaged, it may hold anything.
    const std::string message = model::OneLine(sqlite3_errmsg(db_));
    switch (rc & 0xff) {
      case SQLITE_NOTADB:
        return NotAProfile(message);
      case SQLITE_CORRUPT:
      case SQLITE_FORMAT:
      case SQLITE_RANGE:
      case SQLITE_MISMATCH:
      case SQLITE_CONSTRAINT:
        return Damaged(message);
      case SQLITE_READONLY:
        if (rc == SQLITE_READONLY_ROLLBACK) needs_rollback_ = true;
        return absl::FailedPreconditionError(absl::StrFormat(
            "%s has an unfinished transaction (its writer stopped mid-batch): %s", path_, message));
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return absl::UnavailableError(absl::StrFormat("%s is locked: %s", path_, message));
      case SQLITE_CANTOPEN:
      case SQLITE_PERM:
      case SQLITE_IOERR: {
        int e = sqlite3_system_errno(db_);
        return absl::Status(
            e != 0 ? absl::ErrnoToStatusCode(e) : absl::StatusCode::kUnavailable,
            absl::StrFormat("cannot read %s: %s%s", path_, message, ErrnoSuffix(db_)));
      }
      case SQLITE_NOMEM:
        return absl::ResourceExhaustedError(absl::StrFormat("reading %s: %s", path_, message));
      default:
        // A table or column the SELECT names is missing: the schema was altered.
        return Damaged(message);
    }
  }

  absl::StatusOr<Stmt> PrepareRead(const std::string& sql) {
    sqlite3_stmt* raw = nullptr;
    int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
    Stmt stmt(raw);
    if (rc != SQLITE_OK) return SqlError(sqlite3_extended_errcode(db_));
    return stmt;
  }

  absl::Status LoadMeta(RunInfo& run) {
    // The first statement reads the schema, so it is where a file that is not a
    // database, or a database of another application, shows up.
    sqlite3_stmt* raw = nullptr;
    constexpr char kSql[] = "SELECT key, value FROM meta ORDER BY rowid";  // as written
    int rc = sqlite3_prepare_v2(db_, kSql, -1, &raw, nullptr);
    Stmt stmt(raw);
    if (rc != SQLITE_OK) {
      int code = sqlite3_extended_errcode(db_);
      if ((code & 0xff) == SQLITE_ERROR &&
          absl::StrContains(sqlite3_errmsg(db_), "no such table")) {
        return NotAProfile("it has no meta table");
      }
      if ((code & 0xff) == SQLITE_ERROR) return NotAProfile(model::OneLine(sqlite3_errmsg(db_)));
      return SqlError(code);
    }
    std::map<std::string, std::string> meta;
    std::vector<std::pair<std::string, std::string>> rows;  // in the order written
    while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
      const unsigned char* key = sqlite3_column_text(stmt.get(), 0);
      const unsigned char* value = sqlite3_column_text(stmt.get(), 1);
      if (key == nullptr) continue;
      const char* text = value != nullptr ? reinterpret_cast<const char*>(value) : "";
      const size_t bytes = value != nullptr ? sqlite3_column_bytes(stmt.get(), 1) : 0;
      rows.emplace_back(model::ReplaceInvalidUtf8(reinterpret_cast<const char*>(key)),
                        model::ReplaceInvalidUtf8(std::string_view(text, bytes)));
      meta[rows.back().first] = rows.back().second;
    }
    if (rc != SQLITE_DONE) return SqlError(sqlite3_extended_errcode(db_));

    auto format = meta.find("format");
    if (format == meta.end()) return NotAProfile("its meta table has no 'format' key");
    if (format->second != kFormatName) {
      return NotAProfile(absl::StrFormat("its format is %s, not '%s'",
                                         model::QuoteForMessage(format->second), kFormatName));
    }
    auto version = meta.find("schema_version");
    int file_version = 0;
    if (version == meta.end() || !absl::SimpleAtoi(version->second, &file_version)) {
      return Damaged("meta has no valid 'schema_version'");
    }
    if (std::string why = UnreadableVersion(file_version); !why.empty()) {
      return absl::FailedPreconditionError(
          absl::StrFormat("%s has profile schema version %d, but %s", path_, file_version, why));
    }
    file_version_ = file_version;

    MetaReader reader(meta);
    VisitRunInfo(run, reader);
    if (!reader.ok()) return Damaged(reader.error());
    if (std::string e = CheckRunInfo(run); !e.empty()) return Damaged(e);
    window_ = RunWindow(run);
    run.notes = NotesFromMeta(rows);
    return absl::OkStatus();
  }

  absl::Status LoadStrings(StringTable& strings) {
    absl::StatusOr<Stmt> stmt = PrepareRead("SELECT id, text FROM strings ORDER BY id");
    if (!stmt.ok()) return stmt.status();
    strings.Clear();  // holds "" as id 0, which the file must hold too
    int64_t expected = 0;
    int rc;
    while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
      int64_t id = sqlite3_column_int64(stmt->get(), 0);
      if (id != expected) {
        return Damaged(
            absl::StrFormat("strings: expected id %d, found %d (ids must be dense "
                            "from 0)",
                            expected, id));
      }
      if (sqlite3_column_type(stmt->get(), 1) != SQLITE_TEXT) {
        return Damaged(absl::StrFormat("strings: id %d is not text", id));
      }
      const char* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt->get(), 1));
      size_t bytes = static_cast<size_t>(sqlite3_column_bytes(stmt->get(), 1));
      if (id == 0) {
        if (bytes != 0) return Damaged("strings: id 0 is not the empty string");
      } else {
        strings.AppendUnchecked(model::ReplaceInvalidUtf8(std::string_view(text, bytes)));
      }
      ++expected;
    }
    if (rc != SQLITE_DONE) return SqlError(sqlite3_extended_errcode(db_));
    if (expected == 0) return Damaged("strings: the empty string (id 0) is missing");
    return absl::OkStatus();
  }

  template <typename Rec>
  absl::Status LoadTable(std::vector<Rec>& out, size_t string_count) {
    // count(*) walks only the b-tree's pages (a few % of the load) and, unlike
    // max(rowid), cannot be made huge by a damaged file: it counts rows that exist.
    absl::StatusOr<Stmt> count =
        PrepareRead(absl::StrCat("SELECT count(*) FROM ", Table<Rec>::kName));
    if (!count.ok()) return count.status();
    if (sqlite3_step(count->get()) == SQLITE_ROW) {
      int64_t rows = sqlite3_column_int64(count->get(), 0);
      if (rows > 0) out.reserve(static_cast<size_t>(rows));
    }

    // In a file of an older version, the columns added since read as their defaults.
    std::set<std::string> present;
    if (file_version_ < kSchemaVersion) {
      if (int rc = TableColumns(db_, Table<Rec>::kName, &present); rc != SQLITE_OK) {
        return SqlError(rc);
      }
    }
    absl::StatusOr<Stmt> stmt = PrepareRead(
        file_version_ < kSchemaVersion ? SelectSqlWithDefaults<Rec>(present) : SelectSql<Rec>());
    if (!stmt.ok()) return stmt.status();
    RowReader reader(stmt->get(), Table<Rec>::kName, string_count);
    MeaningChecker checker(Table<Rec>::kName, window_);
    int rc;
    int64_t row = 0;
    while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
      reader.NextRow();
      Rec& record = out.emplace_back();
      Table<Rec>::Visit(record, reader);
      if (!reader.ok()) return Damaged(reader.error());
      if (const std::string& e = checker.Check(record, ++row); !e.empty()) return Damaged(e);
    }
    if (rc != SQLITE_DONE) return SqlError(sqlite3_extended_errcode(db_));
    return absl::OkStatus();
  }

  sqlite3* db_;
  std::string path_;
  RunWindow window_{model::RunInfo()};
  int file_version_ = kSchemaVersion;
  bool needs_rollback_ = false;
};

// Read-only: loading never creates, modifies or rolls back a file.
absl::StatusOr<Db> OpenReadOnly(const std::string& path) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    int e = raw != nullptr ? sqlite3_system_errno(raw) : 0;
    return absl::Status(
        e != 0 ? absl::ErrnoToStatusCode(e) : absl::StatusCode::kUnavailable,
        absl::StrFormat("cannot open %s: %s%s", path,
                        raw != nullptr ? model::OneLine(sqlite3_errmsg(raw)) : "out of memory",
                        ErrnoSuffix(raw)));
  }
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
  return db;
}

// The writer of `path` died inside a transaction and left a hot journal; rolling
// it back needs write access, and loading must not modify the user's file. So
// copy the file and its journal to a private directory, let SQLite roll back the
// copy, and load that: the result is the last committed batch.
absl::StatusOr<Profile> LoadAfterRollback(const std::string& path) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string dir_template =
      absl::StrCat(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp", "/cuscope-XXXXXX");
  if (mkdtemp(dir_template.data()) == nullptr) {
    return absl::ErrnoToStatus(
        errno, absl::StrFormat("cannot recover %s: cannot make a temporary directory", path));
  }
  const std::filesystem::path dir = dir_template;
  const std::filesystem::path copy = dir / "profile.sqlite";
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } cleanup{dir};

  std::error_code ec;
  std::filesystem::copy_file(path, copy, ec);
  if (!ec) std::filesystem::copy_file(path + "-journal", copy.string() + "-journal", ec);
  // The copies keep the originals' modes; SQLite must write them to roll back, and a
  // read-only profile (0444) gives read-only copies that a non-root user cannot.
  for (const std::filesystem::path& p : {copy, std::filesystem::path(copy.string() + "-journal")}) {
    if (!ec) {
      std::filesystem::permissions(
          p, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write, ec);
    }
  }
  if (ec) {
    return absl::UnavailableError(
        absl::StrFormat("cannot recover %s: copying it failed: %s", path, ec.message()));
  }
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(copy.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    return absl::UnavailableError(
        absl::StrFormat("cannot recover %s: %s", path,
                        raw != nullptr ? model::OneLine(sqlite3_errmsg(raw)) : "out of memory"));
  }
  sqlite3_extended_result_codes(db.get(), 1);
  return Loader(db.get(), path).Load();
}

}  // namespace

absl::StatusOr<Profile> LoadStoredFindings(const std::string& path) {
  if (absl::Status s = CheckProfilePath(path); !s.ok()) return s;
  absl::StatusOr<Db> db = OpenReadOnly(path);
  if (!db.ok()) return db.status();
  Loader loader(db->get(), path);
  absl::StatusOr<Profile> profile = loader.Load(/*findings_only=*/true);
  if (!profile.ok() && loader.needs_rollback()) return LoadAfterRollback(path);
  return profile;
}

absl::StatusOr<Profile> LoadProfile(const std::string& path) {
  if (absl::Status s = CheckProfilePath(path); !s.ok()) return s;
  absl::StatusOr<Db> db = OpenReadOnly(path);
  if (!db.ok()) return db.status();
  Loader loader(db->get(), path);
  absl::StatusOr<Profile> profile = loader.Load();
  if (!profile.ok() && loader.needs_rollback()) {
    db->reset();
    return LoadAfterRollback(path);
  }
  return profile;
}

}  // namespace cuscope::store
