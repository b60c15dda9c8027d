// Profiles of an older schema version than this build writes (schema.h,
// kSchemaVersion), read as far back as kOldestReadableSchemaVersion: a column added
// since reads as the value of a default-constructed record, a table added since as
// empty. Versions:
//   2  the counter tables (version 1 had none: refused)
//   3  syncs.event_id and syncs.event_sync_id, the cuda_events table
//   4  gpu_sample_configs, gpu_samples
//   5  ranges.location_id, the source_locations table
//   6  the own_time table
//   7  the PC sampling tables: sampled_functions, pc_samples, pc_lines, source_text
//   8  source_location_kind `python` (Python call sites)
#ifndef CUSCOPE_LIB_STORE_OLDER_VERSIONS_H_
#define CUSCOPE_LIB_STORE_OLDER_VERSIONS_H_

#include <sqlite3.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "lib/store/schema.h"

namespace cuscope::store {

inline constexpr int kOldestReadableSchemaVersion = 2;

// The first version that has the cuda_events table.
inline constexpr int kCudaEventsSince = 3;
// The first version that has the GPU sample tables.
inline constexpr int kGpuSamplesSince = 4;
// The first version that has the source_locations table.
inline constexpr int kSourceLocationsSince = 5;
// The first version that has the own_time table.
inline constexpr int kOwnTimeSince = 6;
// The first version that has the PC sampling tables.
inline constexpr int kPcSamplesSince = 7;

// "" when this build reads files of `version`, else why not (for the message
// "PATH has profile schema version N, but ...").
std::string UnreadableVersion(int version);

// The names of the columns `table` has in `db`, into *out; an SQLite result code.
int TableColumns(sqlite3* db, const char* table, std::set<std::string>* out);

// Each column's value in a default-constructed record, as an SQL literal.
struct DefaultLister {
  std::vector<std::string> literals;
  template <typename T>
  void Int(const char*, const T& v, ColumnDoc) {
    literals.push_back(absl::StrCat(static_cast<int64_t>(v)));  // uint64: the stored bits
  }
  void StrId(const char*, const model::StringId& v, ColumnDoc) {
    literals.push_back(absl::StrCat(v));
  }
  void Text(const char*, const std::string& v, ColumnDoc) {
    literals.push_back(absl::StrCat("'", absl::StrReplaceAll(v, {{"'", "''"}}), "'"));
  }
  void Real(const char*, const double&, ColumnDoc) { literals.push_back("NULL"); }
  void Blob(const char*, const std::vector<double>&, ColumnDoc) { literals.push_back("X''"); }
};

// The SELECT of Rec's table in a file whose table has only the columns `present`:
// each other column reads as its default.
template <typename Rec>
std::string SelectSqlWithDefaults(const std::set<std::string>& present) {
  const ColumnLister columns = Columns<Rec>();
  DefaultLister defaults;
  const Rec record{};
  Table<Rec>::Visit(record, defaults);
  std::vector<std::string> select;
  for (size_t i = 0; i < columns.names.size(); ++i) {
    const std::string& name = columns.names[i];
    select.push_back(present.count(name) != 0 ? name
                                              : absl::StrCat(defaults.literals[i], " AS ", name));
  }
  return absl::StrCat("SELECT ", absl::StrJoin(select, ", "), " FROM ", Table<Rec>::kName,
                      " ORDER BY rowid");
}

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_OLDER_VERSIONS_H_
