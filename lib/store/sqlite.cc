#include "lib/store/sqlite.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace cuscope::store {

std::string ErrnoSuffix(sqlite3* db) {
  int e = db != nullptr ? sqlite3_system_errno(db) : 0;
  return e != 0 ? absl::StrCat(" (", std::strerror(e), ")") : std::string();
}

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
    return absl::Status(WriteErrorCode(db, rc), absl::StrCat(sqlite3_errmsg(db), " in: ", sql));
  }
  return stmt;
}

int StepDone(sqlite3_stmt* stmt) {
  int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

}  // namespace cuscope::store
