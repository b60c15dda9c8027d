// The profile file: one SQLite database per run. docs/profile-format.md is the
// user-facing description of the schema; keep it in sync with this file.
//
// Every record table is described once, by a Visit function that names each column
// and the struct field it holds. The same description generates the CREATE TABLE,
// the INSERT and the SELECT, binds a record for writing and fills one when reading,
// so the column order can never disagree between the writer and the reader.
//
// A CounterSet holds two lists, so it is saved as three tables of plain rows
// (CounterSetRow, CounterLaunchRow, CounterValueRow below): the writer flattens
// the sets into rows and the loader puts them back together by set id.
#include "lib/model/store.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"

namespace cuscope::model {
namespace {

constexpr char kFormatName[] = "cuscope-profile";
// PRAGMA application_id: lets `file(1)` and other tools recognize the file.
// "CUSP" in ASCII. Informational only: the loader trusts meta.format.
constexpr int32_t kApplicationId = 0x43555350;
// How long a reader or the writer waits for the other's lock before giving up.
constexpr int kBusyTimeoutMs = 5000;
constexpr char kExtraPrefix[] = "extra.";

// ---------------------------------------------------------------------------
// Small SQLite helpers.

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

struct DbDeleter {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using Db = std::unique_ptr<sqlite3, DbDeleter>;

std::string ErrnoSuffix(sqlite3* db) {
  int e = db != nullptr ? sqlite3_system_errno(db) : 0;
  return e != 0 ? absl::StrCat(" (", std::strerror(e), ")") : std::string();
}

// A status code for a failed SQLite call on the writer side.
absl::StatusCode WriteErrorCode(sqlite3* db, int rc) {
  switch (rc & 0xff) {
    case SQLITE_CANTOPEN: {
      int e = sqlite3_system_errno(db);
      return e != 0 ? absl::ErrnoToStatusCode(e) : absl::StatusCode::kUnavailable;
    }
    case SQLITE_PERM:
    case SQLITE_READONLY:
    case SQLITE_AUTH:
      return absl::StatusCode::kPermissionDenied;
    case SQLITE_FULL:
      return absl::StatusCode::kResourceExhausted;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::StatusCode::kUnavailable;
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
      return absl::StatusCode::kDataLoss;
    default:
      return absl::StatusCode::kInternal;
  }
}

absl::Status WriteError(sqlite3* db, int rc, const std::string& path, absl::string_view what) {
  return absl::Status(WriteErrorCode(db, rc),
                      absl::StrCat(what, " ", path, ": ", sqlite3_errmsg(db), ErrnoSuffix(db)));
}

absl::StatusOr<Stmt> Prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  Stmt stmt(raw);
  if (rc != SQLITE_OK) {
    return absl::Status(WriteErrorCode(db, rc),
                        absl::StrCat(sqlite3_errmsg(db), " in: ", sql));
  }
  return stmt;
}

// Runs a statement that returns no rows, and resets it for the next use.
int StepDone(sqlite3_stmt* stmt) {
  int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

// ---------------------------------------------------------------------------
// Enum bounds, for rejecting out-of-range values on load.

constexpr int64_t MaxEnumValue(MemcpyKind) { return static_cast<int64_t>(MemcpyKind::kPtoP); }
constexpr int64_t MaxEnumValue(MemoryKind) {
  return static_cast<int64_t>(MemoryKind::kManagedStatic);
}
constexpr int64_t MaxEnumValue(ApiDomain) { return static_cast<int64_t>(ApiDomain::kDriver); }
constexpr int64_t MaxEnumValue(SyncType) {
  return static_cast<int64_t>(SyncType::kContextSynchronize);
}
constexpr int64_t MaxEnumValue(RangeSource) {
  return static_cast<int64_t>(RangeSource::kScope);
}
constexpr int64_t MaxEnumValue(CounterStrategy) {
  return static_cast<int64_t>(CounterStrategy::kUserRange);
}

const char* ApiDomainName(ApiDomain d) { return d == ApiDomain::kDriver ? "driver" : "runtime"; }

const char* RangeSourceName(RangeSource s) {
  switch (s) {
    case RangeSource::kNvtxPushPop: return "nvtx_push_pop";
    case RangeSource::kNvtxStartEnd: return "nvtx_start_end";
    case RangeSource::kNvtxMark: return "nvtx_mark";
    case RangeSource::kScope: return "scope";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------
// Table descriptions. A visitor `v` gets, for each column in order:
//   v.Int(column, field)        an integer (any width, or an enum)
//   v.StrId(column, field)      a StringId, an integer referring to strings.id
//   v.Text(column, field)       a std::string
//   v.Real(column, field)       a double; NaN is stored as NULL (SQLite has no NaN)
// `R` is the record type, const for writing.

template <typename Rec>
struct Table;

template <>
struct Table<DeviceInfo> {
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
struct Table<KernelRecord> {
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
struct Table<MemcpyRecord> {
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
struct Table<MemsetRecord> {
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
struct Table<ApiRecord> {
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
struct Table<SyncRecord> {
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
  }
};

template <>
struct Table<RangeRecord> {
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
  }
};

template <>
struct Table<OverheadRecord> {
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
  StringId name = kEmptyString;
  Dim3 grid, block;
  CounterStrategy strategy = CounterStrategy::kRotate;
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
  StringId metric = kEmptyString;
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
struct Table<DeviceMetric> {
  static constexpr char kName[] = "device_metrics";
  template <typename R, typename V>
  static void Visit(R& m, V& v) {
    v.Int("device_id", m.device_id);
    v.StrId("metric_id", m.metric);
    v.Real("value", m.value);
  }
};

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
  void StrId(const char* column, const StringId&) {
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
};

template <typename Rec>
ColumnLister Columns() {
  ColumnLister lister;
  const Rec record{};
  Table<Rec>::Visit(record, lister);
  return lister;
}

template <typename Rec>
std::string CreateTableSql(absl::string_view constraints = "") {
  ColumnLister c = Columns<Rec>();
  std::string sql = absl::StrCat("CREATE TABLE ", Table<Rec>::kName, " (\n  ",
                                 absl::StrJoin(c.declarations, ",\n  "));
  if (!constraints.empty()) absl::StrAppend(&sql, ",\n  ", constraints);
  absl::StrAppend(&sql, "\n);\n");
  return sql;
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
std::string UpsertDeviceSql() {
  std::vector<std::string> updates;
  for (const std::string& name : Columns<DeviceInfo>().names) {
    if (name != "id") updates.push_back(absl::StrCat(name, " = excluded.", name));
  }
  return absl::StrCat(InsertSql<DeviceInfo>(), " ON CONFLICT (id) DO UPDATE SET ",
                      absl::StrJoin(updates, ", "));
}

std::string SchemaSql() {
  std::string sql = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE strings (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE enum_names (enum TEXT NOT NULL, value INTEGER NOT NULL, name TEXT NOT NULL,
                         PRIMARY KEY (enum, value)) WITHOUT ROWID;
)sql";
  absl::StrAppend(&sql, CreateTableSql<DeviceInfo>("UNIQUE (id)"),
                  CreateTableSql<KernelRecord>(), CreateTableSql<MemcpyRecord>(),
                  CreateTableSql<MemsetRecord>(), CreateTableSql<ApiRecord>(),
                  CreateTableSql<SyncRecord>(), CreateTableSql<RangeRecord>(),
                  CreateTableSql<OverheadRecord>(),
                  CreateTableSql<CounterSetRow>(Table<CounterSetRow>::kConstraints),
                  CreateTableSql<CounterLaunchRow>(Table<CounterLaunchRow>::kConstraints),
                  CreateTableSql<CounterValueRow>(Table<CounterValueRow>::kConstraints),
                  CreateTableSql<DeviceMetric>());
  // Views for people reading the file in the sqlite3 shell or from Python. The
  // loader does not use them.
  absl::StrAppend(&sql, R"sql(
CREATE VIEW kernels_named AS
  SELECT n.text AS name, k.end_ns - k.start_ns AS duration_ns, k.*, m.text AS mangled_name
  FROM kernels AS k
  LEFT JOIN strings AS n ON n.id = k.name_id
  LEFT JOIN strings AS m ON m.id = k.mangled_name_id;
CREATE VIEW kernel_summary AS
  SELECT n.text AS name, count(*) AS launches,
         sum(k.end_ns - k.start_ns) AS total_ns, avg(k.end_ns - k.start_ns) AS avg_ns,
         min(k.end_ns - k.start_ns) AS min_ns, max(k.end_ns - k.start_ns) AS max_ns
  FROM kernels AS k LEFT JOIN strings AS n ON n.id = k.name_id
  GROUP BY k.name_id ORDER BY total_ns DESC;
CREATE VIEW memcpy_named AS
  SELECT ck.name AS kind_name, c.end_ns - c.start_ns AS duration_ns, c.*,
         sk.name AS src_kind_name, dk.name AS dst_kind_name
  FROM memcpy AS c
  LEFT JOIN enum_names AS ck ON ck.enum = 'memcpy_kind' AND ck.value = c.kind
  LEFT JOIN enum_names AS sk ON sk.enum = 'memory_kind' AND sk.value = c.src_kind
  LEFT JOIN enum_names AS dk ON dk.enum = 'memory_kind' AND dk.value = c.dst_kind;
CREATE VIEW memset_named AS
  SELECT e.name AS memory_kind_name, s.end_ns - s.start_ns AS duration_ns, s.*
  FROM memset AS s
  LEFT JOIN enum_names AS e ON e.enum = 'memory_kind' AND e.value = s.memory_kind;
CREATE VIEW api_calls_named AS
  SELECT n.text AS name, a.end_ns - a.start_ns AS duration_ns, d.name AS domain_name, a.*
  FROM api_calls AS a
  LEFT JOIN strings AS n ON n.id = a.name_id
  LEFT JOIN enum_names AS d ON d.enum = 'api_domain' AND d.value = a.domain;
CREATE VIEW syncs_named AS
  SELECT t.name AS type_name, s.end_ns - s.start_ns AS duration_ns, s.*
  FROM syncs AS s
  LEFT JOIN enum_names AS t ON t.enum = 'sync_type' AND t.value = s.type;
CREATE VIEW ranges_named AS
  SELECT n.text AS name, d.text AS domain, r.end_ns - r.start_ns AS duration_ns,
         src.name AS source_name, r.*
  FROM ranges AS r
  LEFT JOIN strings AS n ON n.id = r.name_id
  LEFT JOIN strings AS d ON d.id = r.domain_id
  LEFT JOIN enum_names AS src ON src.enum = 'range_source' AND src.value = r.source;
CREATE VIEW overheads_named AS
  SELECT n.text AS kind, o.end_ns - o.start_ns AS duration_ns, o.*
  FROM overheads AS o LEFT JOIN strings AS n ON n.id = o.kind_id;
CREATE VIEW counters_named AS
  SELECT n.text AS name, m.text AS metric, v.value AS value, v.set_id AS set_id,
         c.device_id AS device_id, st.name AS strategy_name, c.passes AS passes,
         c.grid_x AS grid_x, c.grid_y AS grid_y, c.grid_z AS grid_z,
         c.block_x AS block_x, c.block_y AS block_y, c.block_z AS block_z
  FROM counter_values AS v
  JOIN counter_sets AS c ON c.id = v.set_id
  LEFT JOIN strings AS n ON n.id = c.name_id
  LEFT JOIN strings AS m ON m.id = v.metric_id
  LEFT JOIN enum_names AS st ON st.enum = 'counter_strategy' AND st.value = c.strategy
  ORDER BY v.rowid;
CREATE VIEW device_metrics_named AS
  SELECT d.device_id AS device_id, m.text AS metric, d.value AS value
  FROM device_metrics AS d LEFT JOIN strings AS m ON m.id = d.metric_id
  ORDER BY d.rowid;
)sql");
  return sql;
}

std::string SqlQuote(absl::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "''"}}), "'");
}

// The rows every profile has from the start: the format and schema version, the
// empty string as id 0 (so the strings table is complete on its own), and the
// enum names, from the same functions the reports use.
std::string FixedRowsSql() {
  std::string sql = absl::StrFormat(
      "INSERT INTO meta (key, value) VALUES ('format', %s), ('schema_version', '%d');\n"
      "INSERT INTO strings (id, text) VALUES (%d, '');\n",
      SqlQuote(kFormatName), kSchemaVersion, kEmptyString);
  std::vector<std::string> rows;
  auto add = [&rows](const char* type, int64_t value, const char* name) {
    rows.push_back(absl::StrFormat("('%s', %d, %s)", type, value, SqlQuote(name)));
  };
  for (int64_t i = 0; i <= MaxEnumValue(MemcpyKind{}); ++i) {
    add("memcpy_kind", i, MemcpyKindName(static_cast<MemcpyKind>(i)));
  }
  for (int64_t i = 0; i <= MaxEnumValue(MemoryKind{}); ++i) {
    add("memory_kind", i, MemoryKindName(static_cast<MemoryKind>(i)));
  }
  for (int64_t i = 0; i <= MaxEnumValue(SyncType{}); ++i) {
    add("sync_type", i, SyncTypeName(static_cast<SyncType>(i)));
  }
  for (int64_t i = 0; i <= MaxEnumValue(ApiDomain{}); ++i) {
    add("api_domain", i, ApiDomainName(static_cast<ApiDomain>(i)));
  }
  for (int64_t i = 0; i <= MaxEnumValue(RangeSource{}); ++i) {
    add("range_source", i, RangeSourceName(static_cast<RangeSource>(i)));
  }
  for (int64_t i = 0; i <= MaxEnumValue(CounterStrategy{}); ++i) {
    add("counter_strategy", i, CounterStrategyName(static_cast<CounterStrategy>(i)));
  }
  absl::StrAppend(&sql, "INSERT INTO enum_names (enum, value, name) VALUES\n  ",
                  absl::StrJoin(rows, ",\n  "), ";\n");
  return sql;
}

// ---------------------------------------------------------------------------
// Writing.

// Rows per multi-row INSERT. Stepping a statement has a fixed cost (start, halt,
// reset) that one-row INSERTs pay per row; 64 rows of 20 columns stay well under
// SQLite's limit of 32766 parameters.
constexpr size_t kRowsPerInsert = 64;

// Binds records' fields to an INSERT's parameters, in column order; successive
// records go to the successive rows of a multi-row INSERT.
class Binder {
 public:
  Binder(sqlite3_stmt* stmt, size_t string_count) : stmt_(stmt), string_count_(string_count) {}

  template <typename T>
  void Int(const char*, const T& value) {
    // uint64 values are stored as their int64 bit pattern (ns timestamps fit).
    sqlite3_bind_int64(stmt_, index_++, static_cast<sqlite3_int64>(value));
  }
  void StrId(const char* column, const StringId& id) {
    if (id >= string_count_ && bad_column_ == nullptr) {
      bad_column_ = column;
      bad_id_ = id;
      bad_row_ = row_;
    }
    sqlite3_bind_int64(stmt_, index_++, id);
  }
  void Text(const char*, const std::string& s) {
    // SQLITE_STATIC: `s` outlives the sqlite3_step that reads it.
    sqlite3_bind_text64(stmt_, index_++, s.data(), s.size(), SQLITE_STATIC, SQLITE_UTF8);
  }
  void Real(const char*, const double& value) {
    // SQLite would store a NaN as NULL anyway; say so. Infinities are stored as such.
    if (std::isnan(value)) {
      sqlite3_bind_null(stmt_, index_++);
    } else {
      sqlite3_bind_double(stmt_, index_++, value);
    }
  }

  // Call before binding each record but the first.
  void NextRow() { ++row_; }

  // A StringId that is not in the batch's string table, if any, and the row
  // (counted from 0 in this statement) that holds it.
  const char* bad_column() const { return bad_column_; }
  StringId bad_id() const { return bad_id_; }
  size_t bad_row() const { return bad_row_; }

 private:
  sqlite3_stmt* stmt_;
  size_t string_count_;
  int index_ = 1;
  size_t row_ = 0;
  const char* bad_column_ = nullptr;
  StringId bad_id_ = 0;
  size_t bad_row_ = 0;
};

// A record table's INSERTs: of one row, and of kRowsPerInsert rows.
struct Inserter {
  Stmt one, many;
};

// Decimal text of integers, for meta rows.
struct MetaWriter {
  std::vector<std::pair<std::string, std::string>> rows;
  template <typename T>
  void Int(const char* key, const T& value) {
    rows.emplace_back(key, absl::StrCat(value));
  }
  void Text(const char* key, const std::string& value) { rows.emplace_back(key, value); }
};

// ---------------------------------------------------------------------------
// Reading.

// Reads one row of a SELECT into a record, checking every value's type and range:
// a damaged file gives an error, never a wrong struct or a crash.
class RowReader {
 public:
  RowReader(sqlite3_stmt* stmt, const char* table, size_t string_count)
      : stmt_(stmt), table_(table), string_count_(string_count) {}

  void NextRow() {
    ++row_;
    index_ = 0;
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  template <typename T>
  void Int(const char* column, T& out) {
    int index = index_++;
    if (!ok()) return;
    if (sqlite3_column_type(stmt_, index) != SQLITE_INTEGER) {
      Fail(column, index, "an integer");
      return;
    }
    int64_t v = sqlite3_column_int64(stmt_, index);
    if constexpr (std::is_enum_v<T>) {
      if (v < 0 || v > MaxEnumValue(T{})) {
        Fail(column, index, absl::StrCat("an integer in [0, ", MaxEnumValue(T{}), "]"));
        return;
      }
      out = static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      out = static_cast<uint64_t>(v);  // the int64 bit pattern the writer stored
    } else {
      static_assert(std::is_integral_v<T> && sizeof(T) <= sizeof(int64_t));
      constexpr int64_t kMin = static_cast<int64_t>(std::numeric_limits<T>::min());
      constexpr int64_t kMax = static_cast<int64_t>(std::numeric_limits<T>::max());
      if (v < kMin || v > kMax) {
        Fail(column, index, absl::StrCat("an integer in [", kMin, ", ", kMax, "]"));
        return;
      }
      out = static_cast<T>(v);
    }
  }
  void StrId(const char* column, StringId& out) {
    int index = index_;
    Int(column, out);
    if (ok() && out >= string_count_) {
      Fail(column, index, absl::StrCat("a string id below ", string_count_));
    }
  }
  void Text(const char* column, std::string& out) {
    int index = index_++;
    if (!ok()) return;
    if (sqlite3_column_type(stmt_, index) != SQLITE_TEXT) {
      Fail(column, index, "text");
      return;
    }
    const unsigned char* text = sqlite3_column_text(stmt_, index);
    int bytes = sqlite3_column_bytes(stmt_, index);
    out.assign(reinterpret_cast<const char*>(text), static_cast<size_t>(bytes));
  }
  void Real(const char* column, double& out) {
    int index = index_++;
    if (!ok()) return;
    switch (sqlite3_column_type(stmt_, index)) {
      case SQLITE_FLOAT:
      case SQLITE_INTEGER:  // not written by us (REAL affinity), but a number
        out = sqlite3_column_double(stmt_, index);
        return;
      case SQLITE_NULL:
        out = std::numeric_limits<double>::quiet_NaN();  // how NaN is stored
        return;
      default:
        Fail(column, index, "a number (or NULL for NaN)");
    }
  }

 private:
  void Fail(const char* column, int index, absl::string_view expected) {
    const unsigned char* text = sqlite3_column_text(stmt_, index);
    std::string value =
        text == nullptr ? "NULL" : absl::StrCat("'", reinterpret_cast<const char*>(text), "'");
    if (value.size() > 64) value = absl::StrCat(value.substr(0, 61), "...");
    error_ = absl::StrFormat("%s row %d: column %s holds %s, expected %s", table_, row_, column,
                             value, expected);
  }

  sqlite3_stmt* stmt_;
  const char* table_;
  size_t string_count_;
  int64_t row_ = 0;
  int index_ = 0;
  std::string error_;
};

// Parses meta values back into RunInfo fields.
class MetaReader {
 public:
  explicit MetaReader(const std::map<std::string, std::string>& meta) : meta_(meta) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  template <typename T>
  void Int(const char* key, T& out) {
    auto it = meta_.find(key);
    if (it == meta_.end() || !ok()) return;  // absent: the writer never got that far
    if (!absl::SimpleAtoi(it->second, &out)) {
      error_ = absl::StrFormat("meta key '%s' holds '%s', expected an integer", key, it->second);
    }
  }
  void Text(const char* key, std::string& out) {
    auto it = meta_.find(key);
    if (it != meta_.end()) out = it->second;
  }

 private:
  const std::map<std::string, std::string>& meta_;
  std::string error_;
};

// Reading one file; the path is the one the user gave (for messages), which may
// differ from the file actually opened (see LoadProfile's recovery path).
class Loader {
 public:
  Loader(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  absl::StatusOr<Profile> Load() {
    Profile profile;
    // One read transaction: every table comes from the same committed state, even
    // while the profiled program is still appending.
    if (int rc = sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr); rc != SQLITE_OK) {
      return SqlError(rc);
    }
    absl::Status status = LoadAll(profile);
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
    if (absl::Status s = LoadTable(profile.kernels, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.memcpys, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.memsets, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.api_calls, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.syncs, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.ranges, n); !s.ok()) return s;
    if (absl::Status s = LoadTable(profile.overheads, n); !s.ok()) return s;
    if (absl::Status s = LoadCounters(profile.counters, n); !s.ok()) return s;
    return LoadTable(profile.device_metrics, n);
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

  absl::Status NotAProfile(absl::string_view why) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s is not a cuscope profile (%s)", path_, why));
  }
  absl::Status Damaged(absl::string_view why) const {
    return absl::DataLossError(absl::StrFormat("%s is damaged: %s", path_, why));
  }

  // Maps a failed SQLite call to a status naming the path.
  absl::Status SqlError(int rc) {
    const char* message = sqlite3_errmsg(db_);
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
            "%s has an unfinished transaction (its writer stopped mid-batch): %s", path_,
            message));
      case SQLITE_BUSY:
      case SQLITE_LOCKED:
        return absl::UnavailableError(absl::StrFormat("%s is locked: %s", path_, message));
      case SQLITE_CANTOPEN:
      case SQLITE_PERM:
      case SQLITE_IOERR: {
        int e = sqlite3_system_errno(db_);
        return absl::Status(e != 0 ? absl::ErrnoToStatusCode(e) : absl::StatusCode::kUnavailable,
                            absl::StrFormat("cannot read %s: %s%s", path_, message,
                                            ErrnoSuffix(db_)));
      }
      case SQLITE_NOMEM:
        return absl::ResourceExhaustedError(
            absl::StrFormat("reading %s: %s", path_, message));
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
    constexpr char kSql[] = "SELECT key, value FROM meta";
    int rc = sqlite3_prepare_v2(db_, kSql, -1, &raw, nullptr);
    Stmt stmt(raw);
    if (rc != SQLITE_OK) {
      int code = sqlite3_extended_errcode(db_);
      if ((code & 0xff) == SQLITE_ERROR &&
          absl::StrContains(sqlite3_errmsg(db_), "no such table")) {
        return NotAProfile("it has no meta table");
      }
      if ((code & 0xff) == SQLITE_ERROR) return NotAProfile(sqlite3_errmsg(db_));
      return SqlError(code);
    }
    std::map<std::string, std::string> meta;
    while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
      const unsigned char* key = sqlite3_column_text(stmt.get(), 0);
      const unsigned char* value = sqlite3_column_text(stmt.get(), 1);
      if (key == nullptr) continue;
      meta[reinterpret_cast<const char*>(key)] =
          value != nullptr ? reinterpret_cast<const char*>(value) : "";
    }
    if (rc != SQLITE_DONE) return SqlError(sqlite3_extended_errcode(db_));

    auto format = meta.find("format");
    if (format == meta.end()) return NotAProfile("its meta table has no 'format' key");
    if (format->second != kFormatName) {
      return NotAProfile(absl::StrFormat("its format is '%s', not '%s'", format->second,
                                         kFormatName));
    }
    auto version = meta.find("schema_version");
    int file_version = 0;
    if (version == meta.end() || !absl::SimpleAtoi(version->second, &file_version)) {
      return Damaged("meta has no valid 'schema_version'");
    }
    if (file_version != kSchemaVersion) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s has profile schema version %d, but this cuscope reads version %d%s", path_,
          file_version, kSchemaVersion,
          file_version > kSchemaVersion ? " (it was written by a newer cuscope)"
                                        : " (it was written by an older cuscope)"));
    }

    MetaReader reader(meta);
    VisitRunInfo(run, reader);
    if (!reader.ok()) return Damaged(reader.error());
    for (const auto& [key, value] : meta) {
      if (absl::StartsWith(key, kExtraPrefix)) {
        run.extra[key.substr(sizeof(kExtraPrefix) - 1)] = value;
      }
    }
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
        return Damaged(absl::StrFormat("strings: expected id %d, found %d (ids must be dense "
                                       "from 0)", expected, id));
      }
      if (sqlite3_column_type(stmt->get(), 1) != SQLITE_TEXT) {
        return Damaged(absl::StrFormat("strings: id %d is not text", id));
      }
      const char* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt->get(), 1));
      size_t bytes = static_cast<size_t>(sqlite3_column_bytes(stmt->get(), 1));
      if (id == 0) {
        if (bytes != 0) return Damaged("strings: id 0 is not the empty string");
      } else {
        strings.AppendUnchecked(std::string(text, bytes));
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

    absl::StatusOr<Stmt> stmt = PrepareRead(SelectSql<Rec>());
    if (!stmt.ok()) return stmt.status();
    RowReader reader(stmt->get(), Table<Rec>::kName, string_count);
    int rc;
    while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
      reader.NextRow();
      Rec& record = out.emplace_back();
      Table<Rec>::Visit(record, reader);
      if (!reader.ok()) return Damaged(reader.error());
    }
    if (rc != SQLITE_DONE) return SqlError(sqlite3_extended_errcode(db_));
    return absl::OkStatus();
  }

  sqlite3* db_;
  std::string path_;
  bool needs_rollback_ = false;
};

// Read-only: loading never creates, modifies or rolls back a file.
absl::StatusOr<Db> OpenReadOnly(const std::string& path) {
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    int e = raw != nullptr ? sqlite3_system_errno(raw) : 0;
    return absl::Status(e != 0 ? absl::ErrnoToStatusCode(e) : absl::StatusCode::kUnavailable,
                        absl::StrFormat("cannot open %s: %s%s", path,
                                        raw != nullptr ? sqlite3_errmsg(raw) : "out of memory",
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
  if (ec) {
    return absl::UnavailableError(
        absl::StrFormat("cannot recover %s: copying it failed: %s", path, ec.message()));
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(copy.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    return absl::UnavailableError(absl::StrFormat(
        "cannot recover %s: %s", path, raw != nullptr ? sqlite3_errmsg(raw) : "out of memory"));
  }
  sqlite3_extended_result_codes(db.get(), 1);
  return Loader(db.get(), path).Load();
}

}  // namespace

// ---------------------------------------------------------------------------
// ProfileWriter.

struct ProfileWriter::Statements {
  Stmt begin, commit, rollback;
  Stmt insert_meta, clear_run_meta;
  Stmt insert_string;
  Stmt upsert_device;
  Inserter kernels, memcpys, memsets, api_calls, syncs, ranges, overheads;
  Inserter counter_sets, counter_launches, counter_values, device_metrics;
  // Counter sets in the file (committed); the next set gets this + 1 as its id.
  int64_t counter_sets_written = 0;
};

ProfileWriter::ProfileWriter(sqlite3* db, std::string path)
    : db_(db), path_(std::move(path)) {}

ProfileWriter::~ProfileWriter() { Close().IgnoreError(); }

absl::StatusOr<std::unique_ptr<ProfileWriter>> ProfileWriter::Create(const std::string& path) {
  // Replace, not reuse: remove the old profile and any journal it left, which
  // SQLite would otherwise "roll back" into the new file.
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
    std::string file = absl::StrCat(path, suffix);
    if (unlink(file.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR) {
      return absl::ErrnoToStatus(errno, absl::StrFormat("cannot replace profile %s", file));
    }
  }

  // NOMUTEX: a writer is used by one thread at a time, so SQLite's per-call mutex
  // would only cost time (a few percent of an Append).
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (raw == nullptr) return absl::ResourceExhaustedError("sqlite3_open_v2: out of memory");
  std::unique_ptr<ProfileWriter> writer(new ProfileWriter(raw, path));
  if (rc != SQLITE_OK) return WriteError(raw, rc, path, "cannot create profile");
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);

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
  rc = sqlite3_exec(raw, setup.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    absl::Status status =
        absl::Status(WriteErrorCode(raw, rc),
                     absl::StrCat("cannot create profile ", path, ": ",
                                  error != nullptr ? error : sqlite3_errmsg(raw),
                                  ErrnoSuffix(raw)));
    sqlite3_free(error);
    return status;
  }

  auto stmts = std::make_unique<Statements>();
  struct {
    Stmt* stmt;
    std::string sql;
  } const statements[] = {
      {&stmts->begin, "BEGIN"},
      {&stmts->commit, "COMMIT"},
      {&stmts->rollback, "ROLLBACK"},
      {&stmts->insert_meta, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)"},
      {&stmts->clear_run_meta,
       "DELETE FROM meta WHERE key NOT IN ('schema_version', 'format')"},
      {&stmts->insert_string, "INSERT INTO strings (id, text) VALUES (?, ?)"},
      {&stmts->upsert_device, UpsertDeviceSql()},
      {&stmts->kernels.one, InsertSql<KernelRecord>()},
      {&stmts->kernels.many, InsertSql<KernelRecord>(kRowsPerInsert)},
      {&stmts->memcpys.one, InsertSql<MemcpyRecord>()},
      {&stmts->memcpys.many, InsertSql<MemcpyRecord>(kRowsPerInsert)},
      {&stmts->memsets.one, InsertSql<MemsetRecord>()},
      {&stmts->memsets.many, InsertSql<MemsetRecord>(kRowsPerInsert)},
      {&stmts->api_calls.one, InsertSql<ApiRecord>()},
      {&stmts->api_calls.many, InsertSql<ApiRecord>(kRowsPerInsert)},
      {&stmts->syncs.one, InsertSql<SyncRecord>()},
      {&stmts->syncs.many, InsertSql<SyncRecord>(kRowsPerInsert)},
      {&stmts->ranges.one, InsertSql<RangeRecord>()},
      {&stmts->ranges.many, InsertSql<RangeRecord>(kRowsPerInsert)},
      {&stmts->overheads.one, InsertSql<OverheadRecord>()},
      {&stmts->overheads.many, InsertSql<OverheadRecord>(kRowsPerInsert)},
      {&stmts->counter_sets.one, InsertSql<CounterSetRow>()},
      {&stmts->counter_sets.many, InsertSql<CounterSetRow>(kRowsPerInsert)},
      {&stmts->counter_launches.one, InsertSql<CounterLaunchRow>()},
      {&stmts->counter_launches.many, InsertSql<CounterLaunchRow>(kRowsPerInsert)},
      {&stmts->counter_values.one, InsertSql<CounterValueRow>()},
      {&stmts->counter_values.many, InsertSql<CounterValueRow>(kRowsPerInsert)},
      {&stmts->device_metrics.one, InsertSql<DeviceMetric>()},
      {&stmts->device_metrics.many, InsertSql<DeviceMetric>(kRowsPerInsert)},
  };
  for (const auto& s : statements) {
    absl::StatusOr<Stmt> stmt = Prepare(raw, s.sql);
    if (!stmt.ok()) {
      return absl::Status(stmt.status().code(), absl::StrCat("cannot create profile ", path,
                                                             ": ", stmt.status().message()));
    }
    *s.stmt = *std::move(stmt);
  }
  writer->stmts_ = std::move(stmts);
  writer->strings_written_ = 1;  // the empty string, id 0, is one of the fixed rows
  return writer;
}

namespace {
// BEGIN, `body` (returns an SQLite result code), COMMIT; on failure ROLLBACK and
// the error "<what> <path>: ...".
template <typename Body>
absl::Status InTransaction(sqlite3* db, const std::string& path, sqlite3_stmt* begin,
                           sqlite3_stmt* commit, sqlite3_stmt* rollback, absl::string_view what,
                           Body body) {
  if (int rc = StepDone(begin); rc != SQLITE_OK) return WriteError(db, rc, path, what);
  int rc = body();
  if (rc == SQLITE_OK) rc = StepDone(commit);
  if (rc != SQLITE_OK) {
    absl::Status status = WriteError(db, rc, path, what);
    StepDone(rollback);
    return status;
  }
  return absl::OkStatus();
}
}  // namespace

absl::Status ProfileWriter::WriteRunInfo(const RunInfo& run) {
  if (db_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(path_, " is closed"));
  MetaWriter meta;
  VisitRunInfo(run, meta);
  for (const auto& [key, value] : run.extra) {
    meta.rows.emplace_back(absl::StrCat(kExtraPrefix, key), value);
  }

  return InTransaction(db_, path_, stmts_->begin.get(), stmts_->commit.get(),
                       stmts_->rollback.get(), "cannot write run info to", [&] {
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

namespace {

// Names records[i] in the message about a bad string id: "kernels[3]".
template <typename Rec>
struct TableLabel {
  std::string operator()(size_t i) const { return absl::StrCat(Table<Rec>::kName, "[", i, "]"); }
};

// Inserts records[first, first + rows) with `insert`, an INSERT of `rows` rows.
// `label(i)` names records[i] in the message of a bad string id.
template <typename Rec, typename Label>
int InsertRows(sqlite3_stmt* insert, const std::vector<Rec>& records, size_t first,
               size_t rows, size_t string_count, std::string& bad, const Label& label) {
  Binder binder(insert, string_count);
  for (size_t i = first; i < first + rows; ++i) {
    if (i != first) binder.NextRow();
    Table<Rec>::Visit(records[i], binder);
  }
  if (binder.bad_column() != nullptr) {
    sqlite3_clear_bindings(insert);  // drop the pointers to the batch's strings
    bad = absl::StrFormat("%s.%s is %d but the batch has %d strings",
                          label(first + binder.bad_row()), binder.bad_column(), binder.bad_id(),
                          string_count);
    return SQLITE_MISMATCH;
  }
  return StepDone(insert);
}

// Inserts every record of `records`; on failure returns the SQLite code, or
// SQLITE_MISMATCH with `bad` set for a StringId outside the batch's table.
template <typename Rec, typename Label = TableLabel<Rec>>
int InsertAll(const Inserter& insert, const std::vector<Rec>& records, size_t string_count,
              std::string& bad, const Label& label = Label()) {
  size_t i = 0;
  int rc = SQLITE_OK;
  for (; rc == SQLITE_OK && i + kRowsPerInsert <= records.size(); i += kRowsPerInsert) {
    rc = InsertRows(insert.many.get(), records, i, kRowsPerInsert, string_count, bad, label);
  }
  for (; rc == SQLITE_OK && i < records.size(); ++i) {
    rc = InsertRows(insert.one.get(), records, i, 1, string_count, bad, label);
  }
  return rc;
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

  std::string bad;
  absl::Status status = InTransaction(db_, path_, stmts_->begin.get(), stmts_->commit.get(),
                                      stmts_->rollback.get(), "cannot append to", [&] {
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
    if (rc == SQLITE_OK) rc = InsertAll(s.ranges, batch.ranges, string_count, bad);
    if (rc == SQLITE_OK) rc = InsertAll(s.overheads, batch.overheads, string_count, bad);
    if (rc == SQLITE_OK) {
      rc = InsertCounters(s.counter_sets, s.counter_launches, s.counter_values, batch.counters,
                          s.counter_sets_written + 1, string_count, bad);
    }
    if (rc == SQLITE_OK) {
      rc = InsertAll(s.device_metrics, batch.device_metrics, string_count, bad);
    }
    return rc;
  });
  if (!status.ok()) {
    if (bad.empty()) return status;
    return absl::InvalidArgumentError(
        absl::StrFormat("appending to %s: string id out of range: %s", path_, bad));
  }
  strings_written_ = string_count;
  stmts_->counter_sets_written += static_cast<int64_t>(batch.counters.size());
  return absl::OkStatus();
}

absl::Status ProfileWriter::Close() {
  if (db_ == nullptr) return absl::OkStatus();
  stmts_.reset();  // statements must be finalized before the connection closes
  int rc = sqlite3_close(db_);
  absl::Status status = rc == SQLITE_OK ? absl::OkStatus()
                                        : WriteError(db_, rc, path_, "cannot close profile");
  if (rc != SQLITE_OK) sqlite3_close_v2(db_);  // closes once nothing is pending
  db_ = nullptr;
  return status;
}

// ---------------------------------------------------------------------------

absl::Status SaveProfile(const Profile& profile, const std::string& path) {
  absl::StatusOr<std::unique_ptr<ProfileWriter>> writer = ProfileWriter::Create(path);
  if (!writer.ok()) return writer.status();
  absl::Status status = (*writer)->WriteRunInfo(profile.run);
  if (status.ok()) status = (*writer)->WriteDevices(profile.devices);
  if (status.ok()) status = (*writer)->Append(profile);
  if (status.ok()) status = (*writer)->Close();
  if (!status.ok()) {
    writer->reset();
    unlink(path.c_str());  // no half-written profile left behind
  }
  return status;
}

absl::StatusOr<Profile> LoadProfile(const std::string& path) {
  // Checked up front for a clear message: SQLite would say "unable to open
  // database file" for all of these.
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) {
      return absl::NotFoundError(absl::StrFormat("%s: no such profile file", path));
    }
    return absl::ErrnoToStatus(e, absl::StrFormat("cannot read %s", path));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s is not a cuscope profile (it is a directory)", path));
  }

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

}  // namespace cuscope::model
