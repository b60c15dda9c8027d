// The profile file's schema: one SQLite database per run.
//
// Every record table is declared once, with its documentation, by a Table<Rec>
// (table.h; the tables are in activity_tables.h, counter_tables.h, sample_tables.h,
// findings_tables.h, own_time_tables.h and pc_tables.h), and the run's meta keys by VisitRunInfo
// below. The same declarations generate the CREATE TABLE, the INSERT and the SELECT, bind a record
// for writing, fill one when reading, and make the tables of docs/profile-format.md
// (schema_docs.h; tests/unit/store_schema_docs_test.cc fails when the file differs).
#ifndef CUSCOPE_LIB_STORE_SCHEMA_H_
#define CUSCOPE_LIB_STORE_SCHEMA_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/model/finding.h"
#include "lib/model/profile.h"
#include "lib/store/activity_tables.h"
#include "lib/store/counter_tables.h"
#include "lib/store/findings_tables.h"
#include "lib/store/float64_blob.h"
#include "lib/store/own_time_tables.h"
#include "lib/store/pc_tables.h"
#include "lib/store/sample_tables.h"
#include "lib/store/table.h"

namespace cuscope::store {

// The schema version this build writes. Bump it on any change of tables or columns;
// LoadProfile reads it and the older versions older_versions.h describes, and refuses
// others with a clear error.
inline constexpr int kSchemaVersion = 8;

// meta.format of every profile.
inline constexpr char kFormatName[] = "cuscope-profile";
// PRAGMA application_id: lets `file(1)` and other tools recognize the file.
// "CUSP" in ASCII. Informational only: the loader trusts meta.format.
inline constexpr int32_t kApplicationId = 0x43555350;
// RunInfo::notes' keys are saved as meta keys with this prefix (run_notes_rows.h).
inline constexpr char kExtraPrefix[] = "extra.";

// The tables of a profile, in the order they are created and documented. A new
// table is a Table<Rec> (table.h) added here; FindingsTables are created apart, when
// the findings are stored (FindingsSchemaSql).
using ProfileTables =
    TableList<model::DeviceInfo, model::KernelRecord, model::MemcpyRecord, model::MemsetRecord,
              model::ApiRecord, model::SyncRecord, model::CudaEventRecord, model::RangeRecord,
              model::SourceLocation, model::OverheadRecord, CounterSetRow, CounterLaunchRow,
              CounterValueRow, model::DeviceMetric, GpuSampleConfigRow, model::GpuSample,
              model::OwnInterval, model::SampledFunction, model::PcSampleCount, model::PcLine,
              model::SourceText>;
using FindingsTables = TableList<FindingRow, FindingEvidenceRow>;

// Findings as rows (ids 1, 2, ... in rank order), and back: "" when the rows make
// findings, else what is wrong with them (for a "damaged" error).
void FindingsToRows(const std::vector<model::Finding>& findings, std::vector<FindingRow>& rows,
                    std::vector<FindingEvidenceRow>& evidence);
std::string FindingsFromRows(const std::vector<FindingRow>& rows,
                             const std::vector<FindingEvidenceRow>& evidence,
                             std::vector<model::Finding>& out);

// CREATE TABLE IF NOT EXISTS of the findings tables, and the DELETE of their rows.
std::string FindingsSchemaSql();

// The run metadata, as meta rows. Integers are stored as decimal text (meta.value
// is TEXT), so uint64 values keep their full range here. A visitor gets
// v.Int(key, field, doc) and v.Text(key, field, doc), as for Table<Rec>::Visit.
template <typename R, typename V>
void VisitRunInfo(R& r, V& v) {
  v.Text("command_line", r.command_line, "the profiled program's command line");
  v.Int("pid", r.pid, "its process id");
  v.Int("start_unix_ns", r.start_unix_ns, {"ns, Unix epoch", "wall clock when collection started"});
  v.Int("end_unix_ns", r.end_unix_ns,
        {"ns, Unix epoch",
         "wall clock when collection ended; `0` while running or if the program died first"});
  v.Int("start_ns", r.start_ns, {"ns, CUPTI clock", "when collection started"});
  v.Int(
      "end_ns", r.end_ns,
      {"ns, CUPTI clock", "when collection ended; `0` while running or if the program died first"});
  v.Text("cuscope_version", r.cuscope_version, "the cuscope version that wrote the file");
  v.Text("hostname", r.hostname, "the machine's host name");
  v.Int("rank", r.rank, "`RANK` from the environment (distributed jobs), `-1` if unset");
  v.Int("dropped_records", r.dropped_records,
        {"records", "activity records CUPTI dropped because the buffer pool was exhausted"});
  v.Int(
      "buffers_refused", r.buffers_refused,
      {"buffers", "CUPTI buffer requests refused because of the pool cap (`CUSCOPE_MAX_BUFFERS`)"});
  v.Int("internal_kernels", r.internal_kernels,
        {"kernels", "CUPTI's own kernels, not stored in `kernels`"});
  v.Text("exit_reason", r.exit_reason,
         "how collection ended: `exit`, `signal 2`, `stop`, ...; empty while running or if the "
         "program died first");
}

// Collects the column names (and their SQL declarations) of a table.
struct ColumnLister {
  std::vector<std::string> names;
  std::vector<std::string> declarations;
  template <typename T>
  void Int(const char* column, const T&, ColumnDoc) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " INTEGER NOT NULL"));
  }
  void StrId(const char* column, const model::StringId&, ColumnDoc) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " INTEGER NOT NULL REFERENCES strings(id)"));
  }
  void Text(const char* column, const std::string&, ColumnDoc) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " TEXT NOT NULL"));
  }
  void Real(const char* column, const double&, ColumnDoc) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " REAL"));  // NULL: NaN
  }
  void Blob(const char* column, const std::vector<double>&, ColumnDoc) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " BLOB NOT NULL"));
  }
};

template <typename Rec>
ColumnLister Columns() {
  ColumnLister lister;
  const Rec record{};
  Table<Rec>::Visit(record, lister);
  return lister;
}

// An INSERT of `rows` rows at once.
template <typename Rec>
std::string InsertSql(size_t rows = 1) {
  ColumnLister c = Columns<Rec>();
  std::vector<std::string> params(c.names.size(), "?");
  std::vector<std::string> tuples(rows, absl::StrCat("(", absl::StrJoin(params, ", "), ")"));
  return absl::StrCat("INSERT INTO ", Table<Rec>::kName, " (", absl::StrJoin(c.names, ", "),
                      ") VALUES ", absl::StrJoin(tuples, ", "));
}

template <typename Rec>
std::string SelectSql() {
  return absl::StrCat("SELECT ", absl::StrJoin(Columns<Rec>().names, ", "), " FROM ",
                      Table<Rec>::kName, " ORDER BY rowid");
}

// Devices are replaced by id but keep their first position (rowid), so a profile
// loads its devices in the order they were first written.
std::string UpsertDeviceSql();

// The tables and views of a new profile (CREATE statements).
std::string SchemaSql();

// The rows every profile has from the start: the format and schema version, the
// empty string as id 0 (so the strings table is complete on its own), and the
// enum names, from the tables the reports use (lib/model/enum_names.h).
std::string FixedRowsSql();

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_SCHEMA_H_
