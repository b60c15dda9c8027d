#include "lib/store/schema.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "lib/model/enum_names.h"

namespace cuscope::store {
namespace {

template <typename Rec>
std::string CreateTableSql() {
  ColumnLister c = Columns<Rec>();
  std::string sql = absl::StrCat("CREATE TABLE ", Table<Rec>::kName, " (\n  ",
                                 absl::StrJoin(c.declarations, ",\n  "));
  const absl::string_view constraints = Table<Rec>::kConstraints;
  if (!constraints.empty()) absl::StrAppend(&sql, ",\n  ", constraints);
  absl::StrAppend(&sql, "\n);\n");
  return sql;
}

// Views for people reading the file in the sqlite3 shell or from Python. The
// loader does not use them.
constexpr char kViewsSql[] = R"sql(
CREATE VIEW kernels_named AS
  SELECT n.text AS name, k.end_ns - k.start_ns AS duration_ns, k.*, m.text AS mangled_name
  FROM kernels AS k
  LEFT JOIN strings AS n ON n.id = k.name_id
  LEFT JOIN strings AS m ON m.id = k.mangled_name_id;
CREATE VIEW kernel_summary AS
  WITH named AS (
    SELECT coalesce(nullif(n.text, ''), nullif(m.text, ''), '<unnamed kernel>') AS name,
           k.end_ns - k.start_ns AS d, k.flags & 1 AS measured,
           k.start_ns != 0 AND k.end_ns >= k.start_ns AS usable
    FROM kernels AS k LEFT JOIN strings AS n ON n.id = k.name_id
      LEFT JOIN strings AS m ON m.id = k.mangled_name_id),
  per_name AS (
    SELECT name, count(*) AS launches, sum(usable AND measured) AS measured_launches,
           min(CASE WHEN usable THEN measured END) AS all_measured
    FROM named GROUP BY name)
  SELECT t.name AS name, g.launches AS launches, count(*) AS instances, sum(t.d) AS total_ns,
         avg(t.d) AS avg_ns, min(t.d) AS min_ns, max(t.d) AS max_ns,
         g.measured_launches AS measured_launches, g.all_measured AS all_measured
  FROM named AS t JOIN per_name AS g ON g.name = t.name
  WHERE t.usable AND (t.measured = 0 OR g.all_measured = 1)
  GROUP BY t.name ORDER BY total_ns DESC, t.name;
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
CREATE VIEW source_locations_named AS
  SELECT k.name AS kind_name, f.text AS file, s.line AS line, fn.text AS function, s.*
  FROM source_locations AS s
  LEFT JOIN enum_names AS k ON k.enum = 'source_location_kind' AND k.value = s.kind
  LEFT JOIN strings AS f ON f.id = s.file_id
  LEFT JOIN strings AS fn ON fn.id = s.function_id;
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
CREATE VIEW gpu_sample_configs_named AS
  SELECT c.device_id AS device_id, c.interval_ns AS interval_ns, c.position AS position,
         m.text AS metric
  FROM gpu_sample_configs AS c LEFT JOIN strings AS m ON m.id = c.metric_id
  ORDER BY c.device_id, c.position;
CREATE VIEW own_time_named AS
  SELECT k.name AS kind_name, o.end_ns - o.start_ns AS duration_ns, o.*
  FROM own_time AS o
  LEFT JOIN enum_names AS k ON k.enum = 'own_kind' AND k.value = o.kind;
)sql";

std::string SqlQuote(absl::string_view text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "''"}}), "'");
}

// The enum_names rows of E: ('<enum>', value, '<name>').
template <typename E>
void AddEnumRows(std::vector<std::string>& rows) {
  for (const model::EnumNameRow<E>& row : model::EnumNames<E>::kRows) {
    rows.push_back(absl::StrFormat("('%s', %d, %s)", model::EnumNames<E>::kEnum,
                                   static_cast<int64_t>(row.value), SqlQuote(row.name)));
  }
}

}  // namespace

std::string UpsertDeviceSql() {
  std::vector<std::string> updates;
  for (const std::string& name : Columns<model::DeviceInfo>().names) {
    if (name != "id") updates.push_back(absl::StrCat(name, " = excluded.", name));
  }
  return absl::StrCat(InsertSql<model::DeviceInfo>(), " ON CONFLICT (id) DO UPDATE SET ",
                      absl::StrJoin(updates, ", "));
}

std::string SchemaSql() {
  std::string sql = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE strings (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE enum_names (enum TEXT NOT NULL, value INTEGER NOT NULL, name TEXT NOT NULL,
                         PRIMARY KEY (enum, value)) WITHOUT ROWID;
)sql";
  ProfileTables::ForEach([&sql](auto table) {
    absl::StrAppend(&sql, CreateTableSql<typename decltype(table)::Record>());
  });
  absl::StrAppend(&sql, kViewsSql);
  return sql;
}

std::string FixedRowsSql() {
  std::string sql = absl::StrFormat(
      "INSERT INTO meta (key, value) VALUES ('format', %s), ('schema_version', '%d');\n"
      "INSERT INTO strings (id, text) VALUES (%d, '');\n",
      SqlQuote(kFormatName), kSchemaVersion, model::kEmptyString);
  std::vector<std::string> rows;
  AddEnumRows<model::MemcpyKind>(rows);
  AddEnumRows<model::MemoryKind>(rows);
  AddEnumRows<model::SyncType>(rows);
  AddEnumRows<model::ApiDomain>(rows);
  AddEnumRows<model::RangeSource>(rows);
  AddEnumRows<model::CounterStrategy>(rows);
  AddEnumRows<model::SourceLocationKind>(rows);
  AddEnumRows<model::OwnKind>(rows);
  absl::StrAppend(&sql, "INSERT INTO enum_names (enum, value, name) VALUES\n  ",
                  absl::StrJoin(rows, ",\n  "), ";\n");
  return sql;
}

}  // namespace cuscope::store
