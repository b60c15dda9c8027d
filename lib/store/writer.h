// Saving profiles: a SQLite database whose schema is documented in
// docs/profile-format.md (and described in lib/store/schema.h). The writer appends
// batches as they arrive, each in one transaction, so a crash of the profiled
// program keeps what was already written.
#ifndef CUSCOPE_LIB_STORE_WRITER_H_
#define CUSCOPE_LIB_STORE_WRITER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/model/profile.h"

struct sqlite3;

namespace cuscope::store {

class ProfileWriter {
 public:
  // Creates (or truncates) the database at `path` and writes the schema.
  static absl::StatusOr<std::unique_ptr<ProfileWriter>> Create(const std::string& path);
  // Opens the finished profile at `path` (closed by its writer; of any schema version)
  // to store its findings: WriteFindings and Close only.
  static absl::StatusOr<std::unique_ptr<ProfileWriter>> OpenFinished(const std::string& path);
  ~ProfileWriter();
  ProfileWriter(const ProfileWriter&) = delete;
  ProfileWriter& operator=(const ProfileWriter&) = delete;

  // Replaces the run metadata (call at start and again at the end).
  absl::Status WriteRunInfo(const model::RunInfo& run);
  // Inserts or replaces devices by id.
  absl::Status WriteDevices(const std::vector<model::DeviceInfo>& devices);
  // Appends the records of `batch`, and the strings of batch.strings that this
  // writer has not written yet (strings are append-only: the batch's table must be
  // the same growing table on every call). One transaction.
  absl::Status Append(const model::Profile& batch);
  // Stores the advisor's findings (ranked), replacing any stored before; creates the
  // findings tables when the file has none. One transaction.
  absl::Status WriteFindings(const std::vector<model::Finding>& findings);
  // Kernels measured by kernel replay get their times (lib/store/measured_times.h):
  // once, after the last Append (SaveProfile does it; the session when counters ran).
  absl::Status PlaceMeasuredKernels();
  absl::Status Close();
  const std::string& path() const { return path_; }

 private:
  ProfileWriter(sqlite3* db, std::string path);
  static absl::StatusOr<std::unique_ptr<ProfileWriter>> Open(const std::string& path, bool create);
  struct Statements;
  sqlite3* db_ = nullptr;
  std::string path_;
  std::unique_ptr<Statements> stmts_;
  size_t strings_written_ = 0;
};

// Writes a whole profile (Create + WriteRunInfo + WriteDevices + Append, its findings
// when it has them, Close).
absl::Status SaveProfile(const model::Profile& profile, const std::string& path);

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_WRITER_H_
