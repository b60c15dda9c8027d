// ProfileWriter: creates a profile file (schema.h's tables and fixed rows) and
// appends batches to it, each in one transaction.
#include "lib/store/writer.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/store/insert_rows.h"
#include "lib/store/measured_times.h"
#include "lib/store/run_notes_rows.h"
#include "lib/store/sample_rows.h"
#include "lib/store/schema.h"
#include "lib/store/sqlite.h"

namespace cuscope::store {

using model::CounterSet;
using model::DeviceInfo;
using model::Profile;
using model::RunInfo;
using model::StringId;

using insert::Binder;
using insert::InsertAll;
using insert::Inserter;
using insert::kRowsPerInsert;

namespace {

// Decimal text of integers, for meta rows.
struct MetaWriter {
  std::vector<std::pair<std::string, std::string>> rows;
  template <typename T>
  void Int(const char* key, const T& value, ColumnDoc) {
    rows.emplace_back(key, absl::StrCat(value));
  }
  void Text(const char* key, const std::string& value, ColumnDoc) { rows.emplace_back(key, value); }
};

// Replace, not reuse: removes the old profile at `path` and any journal it left,
// which SQLite would otherwise "roll back" into the new file.
absl::Status RemoveOldProfile(const std::string& path) {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    std::string file = absl::StrCat(path, suffix);
    if (unlink(file.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR) {
      return absl::ErrnoToStatus(errno, absl::StrFormat("cannot replace profile %s", file));
    }
  }
  return absl::OkStatus();
}

// Writes the schema and its fixed rows into the new file.
absl::Status CreateSchema(sqlite3* db, const std::string& path) {
  // journal_mode=DELETE keeps the profile one self-contained file (no -wal/-shm)
  // and lets a crash mid-batch roll back cleanly. synchronous=OFF: we only need
  // to survive the profiled process dying, and the OS keeps what we wrote; not
  // paying an fsync per batch keeps the writer off the application's critical path.
  // The schema and its fixed rows go in one transaction: the file is a complete
  // profile, or has no tables at all.
  std::string setup = absl::StrFormat(
      "PRAGMA journal_mode=DELETE;\n"
      "PRAGMA synchronous=OFF;\n"
      "PRAGMA application_id=%d;\n"
      "BEGIN;\n%s%s\nCOMMIT;",
      kApplicationId, SchemaSql(), FixedRowsSql());
  char* error = nullptr;
  int rc = sqlite3_exec(db, setup.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    absl::Status status =
        absl::Status(WriteErrorCode(db, rc),
                     absl::StrCat("cannot create profile ", path, ": ",
                                  error != nullptr ? error : sqlite3_errmsg(db), ErrnoSuffix(db)));
    sqlite3_free(error);
    return status;
  }
  return absl::OkStatus();
}

// Inserts the counter sets of a batch as rows of counter_sets (ids first_id,
// first_id + 1, ...), counter_launches and counter_values. A bad string id is
// named by the batch's field: "counters[2].name_id", "counters[2].values[1].metric_id".
int InsertCounters(const Inserter& insert_sets, const Inserter& insert_launches,
                   const Inserter& insert_values, const std::vector<CounterSet>& counters,
                   int64_t first_id, size_t string_count, std::string& bad) {
  if (counters.empty()) return SQLITE_OK;
  std::vector<CounterSetRow> sets;
  std::vector<CounterLaunchRow> launches;
  std::vector<CounterValueRow> values;
  std::vector<size_t> first_value;  // index in `values` of each set's first value
  sets.reserve(counters.size());
  first_value.reserve(counters.size());
  for (size_t i = 0; i < counters.size(); ++i) {
    const CounterSet& c = counters[i];
    const int64_t id = first_id + static_cast<int64_t>(i);
    sets.push_back({id, c.device_id, c.name, c.grid, c.block, c.strategy, c.passes});
    for (uint32_t correlation_id : c.correlation_ids) launches.push_back({id, correlation_id});
    first_value.push_back(values.size());
    for (const auto& [metric, value] : c.values) values.push_back({id, metric, value});
  }
  int rc = InsertAll(insert_sets, sets, string_count, bad,
                     [](size_t i) { return absl::StrCat("counters[", i, "]"); });
  if (rc == SQLITE_OK) rc = InsertAll(insert_launches, launches, string_count, bad);
  if (rc == SQLITE_OK) {
    rc = InsertAll(insert_values, values, string_count, bad, [&](size_t i) {
      const size_t set = static_cast<size_t>(values[i].set_id - first_id);
      return absl::StrCat("counters[", set, "].values[", i - first_value[set], "]");
    });
  }
  return rc;
}

}  // namespace

// ---------------------------------------------------------------------------
// ProfileWriter.

struct ProfileWriter::Statements {
  Stmt begin, commit, rollback;
  Stmt insert_meta, clear_run_meta;
  Stmt insert_string;
  Stmt upsert_device;
  Inserter kernels, memcpys, memsets, api_calls, syncs, event_records, ranges, overheads;
  Inserter counter_sets, counter_launches, counter_values, device_metrics;
  Inserter gpu_sample_configs, gpu_samples, locations, own_time;
  Inserter sampled_functions, pc_samples, pc_lines, source_text;
  // Counter sets in the file (committed); the next set gets this + 1 as its id.
  int64_t counter_sets_written = 0;
  // The devices whose sample configuration is in the file (committed).
  SampleMetricCounts sample_metrics;

  // Prepares every statement (only BEGIN, COMMIT and ROLLBACK with
  // `transactions_only`); an error says "cannot create profile <path>: ...".
  absl::Status PrepareAll(sqlite3* db, const std::string& path, bool transactions_only);
  // Inserts the PC sampling records of a batch (pc_tables.h), as InsertAll.
  int InsertPcRecords(const Profile& batch, size_t string_count, std::string& bad) const {
    int rc = InsertAll(sampled_functions, batch.sampled_functions, string_count, bad);
    if (rc == SQLITE_OK) rc = InsertAll(pc_samples, batch.pc_samples, string_count, bad);
    if (rc == SQLITE_OK) rc = InsertAll(pc_lines, batch.pc_lines, string_count, bad);
    if (rc == SQLITE_OK) rc = InsertAll(source_text, batch.source_text, string_count, bad);
    return rc;
  }
};

absl::Status ProfileWriter::Statements::PrepareAll(sqlite3* db, const std::string& path,
                                                   bool transactions_only) {
  struct {
    Stmt* stmt;
    std::string sql;
  } const statements[] = {
      {&begin, "BEGIN"},
      {&commit, "COMMIT"},
      {&rollback, "ROLLBACK"},
      {&insert_meta, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"},
      {&clear_run_meta, "DELETE FROM meta WHERE key NOT IN ('schema_version', 'format')"},
      {&insert_string, "INSERT INTO strings (id, text) VALUES (?, ?)"},
      {&upsert_device, UpsertDeviceSql()},
      {&kernels.one, InsertSql<model::KernelRecord>()},
      {&kernels.many, InsertSql<model::KernelRecord>(kRowsPerInsert)},
      {&memcpys.one, InsertSql<model::MemcpyRecord>()},
      {&memcpys.many, InsertSql<model::MemcpyRecord>(kRowsPerInsert)},
      {&memsets.one, InsertSql<model::MemsetRecord>()},
      {&memsets.many, InsertSql<model::MemsetRecord>(kRowsPerInsert)},
      {&api_calls.one, InsertSql<model::ApiRecord>()},
      {&api_calls.many, InsertSql<model::ApiRecord>(kRowsPerInsert)},
      {&syncs.one, InsertSql<model::SyncRecord>()},
      {&syncs.many, InsertSql<model::SyncRecord>(kRowsPerInsert)},
      {&event_records.one, InsertSql<model::CudaEventRecord>()},
      {&event_records.many, InsertSql<model::CudaEventRecord>(kRowsPerInsert)},
      {&ranges.one, InsertSql<model::RangeRecord>()},
      {&ranges.many, InsertSql<model::RangeRecord>(kRowsPerInsert)},
      {&locations.one, InsertSql<model::SourceLocation>()},
      {&locations.many, InsertSql<model::SourceLocation>(kRowsPerInsert)},
      {&overheads.one, InsertSql<model::OverheadRecord>()},
      {&overheads.many, InsertSql<model::OverheadRecord>(kRowsPerInsert)},
      {&counter_sets.one, InsertSql<CounterSetRow>()},
      {&counter_sets.many, InsertSql<CounterSetRow>(kRowsPerInsert)},
      {&counter_launches.one, InsertSql<CounterLaunchRow>()},
      {&counter_launches.many, InsertSql<CounterLaunchRow>(kRowsPerInsert)},
      {&counter_values.one, InsertSql<CounterValueRow>()},
      {&counter_values.many, InsertSql<CounterValueRow>(kRowsPerInsert)},
      {&device_metrics.one, InsertSql<model::DeviceMetric>()},
      {&device_metrics.many, InsertSql<model::DeviceMetric>(kRowsPerInsert)},
      {&gpu_sample_configs.one, InsertSql<GpuSampleConfigRow>()},
      {&gpu_sample_configs.many, InsertSql<GpuSampleConfigRow>(kRowsPerInsert)},
      {&gpu_samples.one, InsertSql<model::GpuSample>()},
      {&gpu_samples.many, InsertSql<model::GpuSample>(kRowsPerInsert)},
      {&own_time.one, InsertSql<model::OwnInterval>()},
      {&own_time.many, InsertSql<model::OwnInterval>(kRowsPerInsert)},
      {&sampled_functions.one, InsertSql<model::SampledFunction>()},
      {&sampled_functions.many, InsertSql<model::SampledFunction>(kRowsPerInsert)},
      {&pc_samples.one, InsertSql<model::PcSampleCount>()},
      {&pc_samples.many, InsertSql<model::PcSampleCount>(kRowsPerInsert)},
      {&pc_lines.one, InsertSql<model::PcLine>()},
      {&pc_lines.many, InsertSql<model::PcLine>(kRowsPerInsert)},
      {&source_text.one, InsertSql<model::SourceText>()},
      {&source_text.many, InsertSql<model::SourceText>(kRowsPerInsert)},
  };
  for (const auto& s : statements) {
    if (transactions_only && s.stmt != &begin && s.stmt != &commit && s.stmt != &rollback) break;
    absl::StatusOr<Stmt> stmt = Prepare(db, s.sql);
    if (!stmt.ok()) {
      return absl::Status(stmt.status().code(), absl::StrCat("cannot create profile ", path, ": ",
                                                             stmt.status().message()));
    }
    *s.stmt = *std::move(stmt);
  }
  return absl::OkStatus();
}

ProfileWriter::ProfileWriter(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

ProfileWriter::~ProfileWriter() { Close().IgnoreError(); }

absl::StatusOr<std::unique_ptr<ProfileWriter>> ProfileWriter::Create(const std::string& path) {
  if (absl::Status s = RemoveOldProfile(path); !s.ok()) return s;
  return Open(path, true);
}

absl::StatusOr<std::unique_ptr<ProfileWriter>> ProfileWriter::OpenFinished(
    const std::string& path) {
  return Open(path, false);
}

absl::StatusOr<std::unique_ptr<ProfileWriter>> ProfileWriter::Open(const std::string& path,
                                                                   bool create) {
  // NOMUTEX: a writer is used by one thread at a time, so SQLite's per-call mutex
  // would only cost time (a few percent of an Append).
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  if (raw == nullptr) return absl::ResourceExhaustedError("sqlite3_open_v2: out of memory");
  std::unique_ptr<ProfileWriter> writer(new ProfileWriter(raw, path));
  if (rc != SQLITE_OK) {
    return WriteError(raw, rc, path, create ? "cannot create profile" : "cannot open profile");
  }
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  if (create) {
    if (absl::Status s = CreateSchema(raw, path); !s.ok()) return s;
  }
  auto stmts = std::make_unique<Statements>();
  if (absl::Status s = stmts->PrepareAll(raw, path, !create); !s.ok()) return s;
  writer->stmts_ = std::move(stmts);
  // A new file has one string, the empty one (id 0, a fixed row); an opened one takes
  // no Append (its string table is not known).
  writer->strings_written_ = create ? 1 : std::numeric_limits<size_t>::max();
  return writer;
}

absl::Status ProfileWriter::WriteRunInfo(const RunInfo& run) {
  if (db_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, " is closed"));
  MetaWriter meta;
  VisitRunInfo(run, meta);
  for (auto& row : NotesToMetaRows(run.notes)) meta.rows.push_back(std::move(row));

  return InTransaction(
      db_, path_, stmts_->begin.get(), stmts_->commit.get(), stmts_->rollback.get(),
      "cannot write run info to", [&] {
        // Replace: keys of an earlier call that this RunInfo lacks (extra.*) must go.
        int rc = StepDone(stmts_->clear_run_meta.get());
        sqlite3_stmt* insert = stmts_->insert_meta.get();
        for (size_t i = 0; rc == SQLITE_OK && i < meta.rows.size(); ++i) {
          const auto& [key, value] = meta.rows[i];
          sqlite3_bind_text64(insert, 1, key.data(), key.size(), SQLITE_STATIC, SQLITE_UTF8);
          sqlite3_bind_text64(insert, 2, value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8);
          rc = StepDone(insert);
        }
        return rc;
      });
}

absl::Status ProfileWriter::WriteDevices(const std::vector<DeviceInfo>& devices) {
  if (db_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, " is closed"));
  return InTransaction(db_, path_, stmts_->begin.get(), stmts_->commit.get(),
                       stmts_->rollback.get(), "cannot write devices to", [&] {
                         int rc = SQLITE_OK;
                         sqlite3_stmt* upsert = stmts_->upsert_device.get();
                         for (size_t i = 0; rc == SQLITE_OK && i < devices.size(); ++i) {
                           Binder binder(upsert, 0);
                           Table<DeviceInfo>::Visit(devices[i], binder);
                           rc = StepDone(upsert);
                         }
                         return rc;
                       });
}

absl::Status ProfileWriter::Append(const Profile& batch) {
  if (db_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, " is closed"));
  const size_t string_count = batch.strings.size();
  if (string_count < strings_written_) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "appending to %s: the batch has %d strings but %d were already written; every "
        "batch must share one growing StringTable",
        path_, string_count, strings_written_));
  }
  if (string_count == strings_written_ && batch.record_count() == 0) return absl::OkStatus();
  if (std::string e = CheckSampleBatch(batch, stmts_->sample_metrics); !e.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat("appending to %s: %s", path_, e));
  }
  std::vector<GpuSampleConfigRow> config_rows;
  SampleConfigsToRows(batch.sample_configs, config_rows);

  std::string bad;
  absl::Status status = InTransaction(
      db_, path_, stmts_->begin.get(), stmts_->commit.get(), stmts_->rollback.get(),
      "cannot append to", [&] {
        int rc = SQLITE_OK;
        sqlite3_stmt* insert_string = stmts_->insert_string.get();
        for (size_t id = strings_written_; rc == SQLITE_OK && id < string_count; ++id) {
          const std::string& text = batch.strings.Get(static_cast<StringId>(id));
          sqlite3_bind_int64(insert_string, 1, static_cast<sqlite3_int64>(id));
          sqlite3_bind_text64(insert_string, 2, text.data(), text.size(), SQLITE_STATIC,
                              SQLITE_UTF8);
          rc = StepDone(insert_string);
        }
        const Statements& s = *stmts_;
        if (rc == SQLITE_OK) rc = InsertAll(s.kernels, batch.kernels, string_count, bad);
        if (rc == SQLITE_OK) rc = InsertAll(s.memcpys, batch.memcpys, string_count, bad);
        if (rc == SQLITE_OK) rc = InsertAll(s.memsets, batch.memsets, string_count, bad);
        if (rc == SQLITE_OK) rc = InsertAll(s.api_calls, batch.api_calls, string_count, bad);
        if (rc == SQLITE_OK) rc = InsertAll(s.syncs, batch.syncs, string_count, bad);
        if (rc == SQLITE_OK) {
          rc = InsertAll(s.event_records, batch.event_records, string_count, bad);
        }
        if (rc == SQLITE_OK) rc = InsertAll(s.ranges, batch.ranges, string_count, bad);
        if (rc == SQLITE_OK) rc = InsertAll(s.locations, batch.source_locations, string_count, bad);
        if (rc == SQLITE_OK) rc = InsertAll(s.overheads, batch.overheads, string_count, bad);
        if (rc == SQLITE_OK) {
          rc = InsertCounters(s.counter_sets, s.counter_launches, s.counter_values, batch.counters,
                              s.counter_sets_written + 1, string_count, bad);
        }
        if (rc == SQLITE_OK) {
          rc = InsertAll(s.device_metrics, batch.device_metrics, string_count, bad);
        }
        if (rc == SQLITE_OK) rc = InsertAll(s.gpu_sample_configs, config_rows, string_count, bad);
        if (rc == SQLITE_OK) rc = InsertAll(s.gpu_samples, batch.samples, string_count, bad);
        if (rc == SQLITE_OK) rc = InsertAll(s.own_time, batch.own_time, string_count, bad);
        if (rc == SQLITE_OK) rc = s.InsertPcRecords(batch, string_count, bad);
        return rc;
      });
  if (!status.ok()) {
    if (bad.empty()) return status;
    return absl::InvalidArgumentError(
        absl::StrFormat("appending to %s: string id out of range: %s", path_, bad));
  }
  strings_written_ = string_count;
  stmts_->counter_sets_written += static_cast<int64_t>(batch.counters.size());
  for (const model::GpuSampleConfig& c : batch.sample_configs) {
    stmts_->sample_metrics[c.device_id] = c.metrics.size();
  }
  return absl::OkStatus();
}

absl::Status ProfileWriter::WriteFindings(const std::vector<model::Finding>& findings) {
  if (db_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, " is closed"));
  std::vector<FindingRow> rows;
  std::vector<FindingEvidenceRow> evidence;
  FindingsToRows(findings, rows, evidence);
  Inserter insert_rows, insert_evidence;
  return InTransaction(
      db_, path_, stmts_->begin.get(), stmts_->commit.get(), stmts_->rollback.get(),
      "cannot write findings to", [&] {
        int rc = sqlite3_exec(db_, FindingsSchemaSql().c_str(), nullptr, nullptr, nullptr);
        for (auto [stmt, sql] :
             {std::pair{&insert_rows.one, InsertSql<FindingRow>()},
              std::pair{&insert_rows.many, InsertSql<FindingRow>(kRowsPerInsert)},
              std::pair{&insert_evidence.one, InsertSql<FindingEvidenceRow>()},
              std::pair{&insert_evidence.many, InsertSql<FindingEvidenceRow>(kRowsPerInsert)}}) {
          if (rc != SQLITE_OK) break;
          sqlite3_stmt* raw = nullptr;
          rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr);
          stmt->reset(raw);
        }
        std::string bad;  // findings hold no string ids
        if (rc == SQLITE_OK) rc = InsertAll(insert_rows, rows, 0, bad);
        if (rc == SQLITE_OK) rc = InsertAll(insert_evidence, evidence, 0, bad);
        return rc;
      });
}

absl::Status ProfileWriter::PlaceMeasuredKernels() {
  if (db_ == nullptr) return absl::OkStatus();
  return store::PlaceMeasuredKernels(db_, path_).status();
}

absl::Status ProfileWriter::Close() {
  if (db_ == nullptr) return absl::OkStatus();
  stmts_.reset();  // statements must be finalized before the connection closes
  int rc = sqlite3_close(db_);
  absl::Status status =
      rc == SQLITE_OK ? absl::OkStatus() : WriteError(db_, rc, path_, "cannot close profile");
  if (rc != SQLITE_OK) sqlite3_close_v2(db_);  // closes once nothing is pending
  db_ = nullptr;
  return status;
}

}  // namespace cuscope::store
