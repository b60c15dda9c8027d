// The profile file's schema: one SQLite database per run. docs/profile-format.md
// is the user-facing description of the schema; keep it in sync with this file.
//
// Every record table is described once, by a Visit function that names each column
// and the struct field it holds. The same description generates the CREATE TABLE,
// the INSERT and the SELECT, binds a record for writing and fills one when reading,
// so the column order can never disagree between the writer and the reader.
//
// A CounterSet holds two lists, so it is saved as three tables of plain rows
// (CounterSetRow, CounterLaunchRow, CounterValueRow below): the writer flattens
// the sets into rows and the loader puts them back together by set id. GPU
// samples' tables are in sample_tables.h.
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
#include "lib/store/float64_blob.h"
#include "lib/store/sample_tables.h"

namespace cuscope::store {

// The schema version this build writes. Bump it on any change of tables or columns;
// LoadProfile reads it and the older versions older_versions.h describes, and refuses
// others with a clear error.
inline constexpr int kSchemaVersion = 5;

// meta.format of every profile.
inline constexpr char kFormatName[] = "cuscope-profile";
// PRAGMA application_id: lets `file(1)` and other tools recognize the file.
// "CUSP" in ASCII. Informational only: the loader trusts meta.format.
inline constexpr int32_t kApplicationId = 0x43555350;
// RunInfo::extra's keys are saved as meta keys with this prefix.
inline constexpr char kExtraPrefix[] = "extra.";

// Table descriptions. A visitor `v` gets, for each column in order:
//   v.Int(column, field)        an integer (any width, or an enum)
//   v.StrId(column, field)      a StringId, an integer referring to strings.id
//   v.Text(column, field)       a std::string
//   v.Real(column, field)       a double; NaN is stored as NULL (SQLite has no NaN)
//   v.Blob(column, field)       a std::vector<double>, as one BLOB (float64_blob.h);
//                               NaN keeps its bits
// `R` is the record type, const for writing.

template <typename Rec>
struct Table;

template <>
struct Table<model::DeviceInfo> {
  static constexpr char kName[] = "devices";
  template <typename R, typename V>
  static void Visit(R& d, V& v) {
    v.Int("id", d.id);
    v.Text("name", d.name);
    v.Text("uuid", d.uuid);
    v.Int("compute_major", d.compute_major);
    v.Int("compute_minor", d.compute_minor);
    v.Int("sm_count", d.sm_count);
    v.Int("global_memory_bytes", d.global_memory_bytes);
    v.Int("global_memory_bandwidth_kbps", d.global_memory_bandwidth_kbps);
    v.Int("l2_cache_bytes", d.l2_cache_bytes);
    v.Int("max_threads_per_block", d.max_threads_per_block);
    v.Int("max_warps_per_sm", d.max_warps_per_sm);
    v.Int("max_blocks_per_sm", d.max_blocks_per_sm);
    v.Int("max_registers_per_sm", d.max_registers_per_sm);
    v.Int("max_registers_per_block", d.max_registers_per_block);
    v.Int("max_shared_memory_per_sm", d.max_shared_memory_per_sm);
    v.Int("max_shared_memory_per_block", d.max_shared_memory_per_block);
    v.Int("warp_size", d.warp_size);
    v.Int("core_clock_khz", d.core_clock_khz);
  }
};

template <>
struct Table<model::KernelRecord> {
  static constexpr char kName[] = "kernels";
  template <typename R, typename V>
  static void Visit(R& k, V& v) {
    v.Int("start_ns", k.start_ns);
    v.Int("end_ns", k.end_ns);
    v.Int("device_id", k.device_id);
    v.Int("context_id", k.context_id);
    v.Int("stream_id", k.stream_id);
    v.Int("correlation_id", k.correlation_id);
    v.StrId("name_id", k.name);
    v.StrId("mangled_name_id", k.mangled_name);
    v.Int("grid_x", k.grid.x);
    v.Int("grid_y", k.grid.y);
    v.Int("grid_z", k.grid.z);
    v.Int("block_x", k.block.x);
    v.Int("block_y", k.block.y);
    v.Int("block_z", k.block.z);
    v.Int("registers_per_thread", k.registers_per_thread);
    v.Int("static_shared_bytes", k.static_shared_bytes);
    v.Int("dynamic_shared_bytes", k.dynamic_shared_bytes);
    v.Int("graph_id", k.graph_id);
    v.Int("graph_node_id", k.graph_node_id);
    v.Int("flags", k.flags);
  }
};

template <>
struct Table<model::MemcpyRecord> {
  static constexpr char kName[] = "memcpy";
  template <typename R, typename V>
  static void Visit(R& m, V& v) {
    v.Int("start_ns", m.start_ns);
    v.Int("end_ns", m.end_ns);
    v.Int("device_id", m.device_id);
    v.Int("context_id", m.context_id);
    v.Int("stream_id", m.stream_id);
    v.Int("correlation_id", m.correlation_id);
    v.Int("bytes", m.bytes);
    v.Int("kind", m.kind);
    v.Int("src_kind", m.src_kind);
    v.Int("dst_kind", m.dst_kind);
    v.Int("src_device_id", m.src_device_id);
    v.Int("dst_device_id", m.dst_device_id);
    v.Int("graph_node_id", m.graph_node_id);
  }
};

template <>
struct Table<model::MemsetRecord> {
  static constexpr char kName[] = "memset";
  template <typename R, typename V>
  static void Visit(R& m, V& v) {
    v.Int("start_ns", m.start_ns);
    v.Int("end_ns", m.end_ns);
    v.Int("device_id", m.device_id);
    v.Int("context_id", m.context_id);
    v.Int("stream_id", m.stream_id);
    v.Int("correlation_id", m.correlation_id);
    v.Int("bytes", m.bytes);
    v.Int("value", m.value);
    v.Int("memory_kind", m.memory_kind);
    v.Int("graph_node_id", m.graph_node_id);
  }
};

template <>
struct Table<model::ApiRecord> {
  static constexpr char kName[] = "api_calls";
  template <typename R, typename V>
  static void Visit(R& a, V& v) {
    v.Int("start_ns", a.start_ns);
    v.Int("end_ns", a.end_ns);
    v.Int("domain", a.domain);
    v.Int("callback_id", a.callback_id);
    v.StrId("name_id", a.name);
    v.Int("process_id", a.process_id);
    v.Int("thread_id", a.thread_id);
    v.Int("correlation_id", a.correlation_id);
    v.Int("return_value", a.return_value);
  }
};

template <>
struct Table<model::SyncRecord> {
  static constexpr char kName[] = "syncs";
  template <typename R, typename V>
  static void Visit(R& s, V& v) {
    v.Int("start_ns", s.start_ns);
    v.Int("end_ns", s.end_ns);
    v.Int("type", s.type);
    v.Int("context_id", s.context_id);
    v.Int("stream_id", s.stream_id);
    v.Int("correlation_id", s.correlation_id);
    v.Int("process_id", s.process_id);
    v.Int("thread_id", s.thread_id);
    v.Int("event_id", s.event_id);            // since version 3
    v.Int("event_sync_id", s.event_sync_id);  // since version 3
  }
};

template <>
struct Table<model::CudaEventRecord> {  // since version 3
  static constexpr char kName[] = "cuda_events";
  template <typename R, typename V>
  static void Visit(R& e, V& v) {
    v.Int("correlation_id", e.correlation_id);
    v.Int("device_id", e.device_id);
    v.Int("context_id", e.context_id);
    v.Int("stream_id", e.stream_id);
    v.Int("event_id", e.event_id);
    v.Int("event_sync_id", e.event_sync_id);
  }
};

template <>
struct Table<model::RangeRecord> {
  static constexpr char kName[] = "ranges";
  template <typename R, typename V>
  static void Visit(R& r, V& v) {
    v.Int("start_ns", r.start_ns);
    v.Int("end_ns", r.end_ns);
    v.StrId("name_id", r.name);
    v.StrId("domain_id", r.domain);
    v.Int("source", r.source);
    v.Int("process_id", r.process_id);
    v.Int("thread_id", r.thread_id);
    v.Int("range_id", r.id);
    v.Int("depth", r.depth);
    v.Int("location_id", r.location);  // the range's site: source_locations.id; 0 none (v5)
  }
};

// Source locations (since version 5): one row per site that records name, by id.
template <>
struct Table<model::SourceLocation> {
  static constexpr char kName[] = "source_locations";
  template <typename R, typename V>
  static void Visit(R& s, V& v) {
    v.Int("id", s.id);                   // the location's id, unique, not 0
    v.Int("kind", s.kind);               // what the site is: enum source_location_kind
    v.StrId("file_id", s.file);          // the source file as compiled (__FILE__); "" unknown
    v.Int("line", s.line);               // 1-based line in the file; 0 unknown
    v.StrId("function_id", s.function);  // the enclosing function (__func__); "" unknown
  }
};

template <>
struct Table<model::OverheadRecord> {
  static constexpr char kName[] = "overheads";
  template <typename R, typename V>
  static void Visit(R& o, V& v) {
    v.Int("start_ns", o.start_ns);
    v.Int("end_ns", o.end_ns);
    v.StrId("kind_id", o.kind);
    v.Int("thread_id", o.thread_id);
    v.Int("correlation_id", o.correlation_id);
  }
};

// Counter sets, as rows of three tables. A set's id is its position in the file:
// the writer numbers sets 1, 2, ... in the order they are appended, so ordering
// counter_sets by id (its rowid) gives the sets in insertion order, and the rows
// of counter_launches and counter_values, in rowid order, give each set's lists
// in order.
struct CounterSetRow {
  int64_t id = 0;
  uint32_t device_id = 0;
  model::StringId name = model::kEmptyString;
  model::Dim3 grid, block;
  model::CounterStrategy strategy = model::CounterStrategy::kRotate;
  uint32_t passes = 0;
};

// One launch of a set (an element of CounterSet::correlation_ids).
struct CounterLaunchRow {
  int64_t set_id = 0;
  uint32_t correlation_id = 0;
};

// One metric value of a set (an element of CounterSet::values).
struct CounterValueRow {
  int64_t set_id = 0;
  model::StringId metric = model::kEmptyString;
  double value = 0;
};

template <>
struct Table<CounterSetRow> {
  static constexpr char kName[] = "counter_sets";
  // `id` as a table constraint makes it the rowid (no separate index).
  static constexpr char kConstraints[] = "PRIMARY KEY (id)";
  template <typename R, typename V>
  static void Visit(R& c, V& v) {
    v.Int("id", c.id);
    v.Int("device_id", c.device_id);
    v.StrId("name_id", c.name);
    v.Int("grid_x", c.grid.x);
    v.Int("grid_y", c.grid.y);
    v.Int("grid_z", c.grid.z);
    v.Int("block_x", c.block.x);
    v.Int("block_y", c.block.y);
    v.Int("block_z", c.block.z);
    v.Int("strategy", c.strategy);
    v.Int("passes", c.passes);
  }
};

template <>
struct Table<CounterLaunchRow> {
  static constexpr char kName[] = "counter_launches";
  // Declared for readers of the schema; SQLite does not enforce it (foreign keys
  // are off by default), the loader checks it.
  static constexpr char kConstraints[] = "FOREIGN KEY (set_id) REFERENCES counter_sets (id)";
  template <typename R, typename V>
  static void Visit(R& l, V& v) {
    v.Int("set_id", l.set_id);
    v.Int("correlation_id", l.correlation_id);
  }
};

template <>
struct Table<CounterValueRow> {
  static constexpr char kName[] = "counter_values";
  static constexpr char kConstraints[] = "FOREIGN KEY (set_id) REFERENCES counter_sets (id)";
  template <typename R, typename V>
  static void Visit(R& c, V& v) {
    v.Int("set_id", c.set_id);
    v.StrId("metric_id", c.metric);
    v.Real("value", c.value);
  }
};

template <>
struct Table<model::DeviceMetric> {
  static constexpr char kName[] = "device_metrics";
  template <typename R, typename V>
  static void Visit(R& m, V& v) {
    v.Int("device_id", m.device_id);
    v.StrId("metric_id", m.metric);
    v.Real("value", m.value);
  }
};

// The advisor's findings (model::Finding), as rows of two tables made when the
// findings are stored (ProfileWriter::WriteFindings, at the end of the run): a
// profile without them has no findings stored, and readers compute them. A
// finding's id is its rank (1 = the largest estimated gain); its evidence rows, in
// rowid order, are its named numbers in order. Severity and basis are stored by name.
struct FindingRow {
  int64_t id = 0;
  std::string rule, severity, basis;
  double gain_ns = 0, gain_pct = 0;
  std::string summary, advice, kernel, region;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, stream_id = 0, thread_id = 0;
};

struct FindingEvidenceRow {
  int64_t finding_id = 0;
  std::string name;
  double value = 0;
};

template <>
struct Table<FindingRow> {
  static constexpr char kName[] = "findings";
  static constexpr char kConstraints[] = "PRIMARY KEY (id)";
  template <typename R, typename V>
  static void Visit(R& f, V& v) {
    v.Int("id", f.id);
    v.Text("rule", f.rule);
    v.Text("severity", f.severity);
    v.Real("gain_ns", f.gain_ns);
    v.Real("gain_pct", f.gain_pct);
    v.Text("basis", f.basis);
    v.Text("summary", f.summary);
    v.Text("advice", f.advice);
    v.Text("kernel", f.kernel);
    v.Text("region", f.region);
    v.Int("start_ns", f.start_ns);
    v.Int("end_ns", f.end_ns);
    v.Int("device_id", f.device_id);
    v.Int("stream_id", f.stream_id);
    v.Int("thread_id", f.thread_id);
  }
};

template <>
struct Table<FindingEvidenceRow> {
  static constexpr char kName[] = "finding_evidence";
  static constexpr char kConstraints[] = "FOREIGN KEY (finding_id) REFERENCES findings (id)";
  template <typename R, typename V>
  static void Visit(R& e, V& v) {
    v.Int("finding_id", e.finding_id);
    v.Text("name", e.name);
    v.Real("value", e.value);
  }
};

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
// is TEXT), so uint64 values keep their full range here.
template <typename R, typename V>
void VisitRunInfo(R& r, V& v) {
  v.Text("command_line", r.command_line);
  v.Int("pid", r.pid);
  v.Int("start_unix_ns", r.start_unix_ns);
  v.Int("end_unix_ns", r.end_unix_ns);
  v.Int("start_ns", r.start_ns);
  v.Int("end_ns", r.end_ns);
  v.Text("cuscope_version", r.cuscope_version);
  v.Text("hostname", r.hostname);
  v.Int("rank", r.rank);
  v.Int("dropped_records", r.dropped_records);
  v.Int("buffers_refused", r.buffers_refused);
  v.Int("internal_kernels", r.internal_kernels);
  v.Text("exit_reason", r.exit_reason);
}

// Collects the column names (and their SQL declarations) of a table.
struct ColumnLister {
  std::vector<std::string> names;
  std::vector<std::string> declarations;
  template <typename T>
  void Int(const char* column, const T&) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " INTEGER NOT NULL"));
  }
  void StrId(const char* column, const model::StringId&) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " INTEGER NOT NULL REFERENCES strings(id)"));
  }
  void Text(const char* column, const std::string&) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " TEXT NOT NULL"));
  }
  void Real(const char* column, const double&) {
    names.push_back(column);
    declarations.push_back(absl::StrCat(column, " REAL"));  // NULL: NaN
  }
  void Blob(const char* column, const std::vector<double>&) {
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
