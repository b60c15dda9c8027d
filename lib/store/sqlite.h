// Small SQLite helpers shared by the profile writer and reader: owning handles,
// preparing and stepping statements, and SQLite result codes as absl::Status.
#ifndef CUSCOPE_LIB_STORE_SQLITE_H_
#define CUSCOPE_LIB_STORE_SQLITE_H_

#include <sqlite3.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cuscope::store {

// How long a reader or the writer waits for the other's lock before giving up.
inline constexpr int kBusyTimeoutMs = 5000;

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

struct DbDeleter {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using Db = std::unique_ptr<sqlite3, DbDeleter>;

// " (strerror of the last OS error)" of `db`, or "" when there is none.
std::string ErrnoSuffix(sqlite3* db);

// A status code for a failed SQLite call on the writer side.
absl::StatusCode WriteErrorCode(sqlite3* db, int rc);

// "<what> <path>: <SQLite's message>" with the code of WriteErrorCode.
absl::Status WriteError(sqlite3* db, int rc, const std::string& path, absl::string_view what);

// Prepares a statement that is kept for many uses (SQLITE_PREPARE_PERSISTENT).
absl::StatusOr<Stmt> Prepare(sqlite3* db, const std::string& sql);

// Runs a statement that returns no rows, and resets it for the next use.
int StepDone(sqlite3_stmt* stmt);

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

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_SQLITE_H_
