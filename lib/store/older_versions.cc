#include "lib/store/older_versions.h"

#include "absl/strings/str_format.h"
#include "lib/store/sqlite.h"

namespace cuscope::store {

std::string UnreadableVersion(int version) {
  if (version > kSchemaVersion) {
    return absl::StrFormat(
        "this cuscope reads versions %d to %d (it was written by a newer "
        "cuscope)",
        kOldestReadableSchemaVersion, kSchemaVersion);
  }
  if (version < kOldestReadableSchemaVersion) {
    return absl::StrFormat(
        "this cuscope reads versions %d to %d (it was written by an older "
        "cuscope)",
        kOldestReadableSchemaVersion, kSchemaVersion);
  }
  return "";
}

int TableColumns(sqlite3* db, const char* table, std::set<std::string>* out) {
  const std::string sql = absl::StrCat("SELECT name FROM pragma_table_info('", table, "')");
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr);
  Stmt stmt(raw);
  if (rc != SQLITE_OK) return sqlite3_extended_errcode(db);
  while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
    const unsigned char* name = sqlite3_column_text(stmt.get(), 0);
    if (name != nullptr) out->insert(reinterpret_cast<const char*>(name));
  }
  return rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(db);
}

}  // namespace cuscope::store
