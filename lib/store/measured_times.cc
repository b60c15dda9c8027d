#include "lib/store/measured_times.h"

#include <cmath>
#include <vector>

#include "lib/model/metrics.h"
#include "lib/model/profile.h"
#include "lib/store/sqlite.h"

namespace cuscope::store {
namespace {

// Measured kernels without times, their API call's span (over every call of the
// correlation id: the runtime call and the driver call inside it) and the
// profiler's duration of the kernel, when its set has one.
constexpr char kCandidates[] = R"sql(
SELECT k.rowid, MIN(a.start_ns), MAX(a.end_ns),
  (SELECT v.value FROM counter_launches AS l
     JOIN counter_values AS v ON v.set_id = l.set_id
     JOIN strings AS s ON s.id = v.metric_id
   WHERE l.correlation_id = k.correlation_id AND s.text = ?1 LIMIT 1)
FROM kernels AS k JOIN api_calls AS a ON a.correlation_id = k.correlation_id
WHERE k.start_ns = 0 AND k.end_ns = 0 AND (k.flags & ?2) != 0
GROUP BY k.rowid)sql";

constexpr char kPlace[] =
    "UPDATE kernels SET start_ns = ?1, end_ns = ?2, flags = flags | ?3 WHERE rowid = ?4";

struct Placement {
  int64_t rowid, start, end;
};

}  // namespace

absl::StatusOr<int64_t> PlaceMeasuredKernels(sqlite3* db, const std::string& path) {
  absl::StatusOr<Stmt> select = Prepare(db, kCandidates);
  if (!select.ok()) return select.status();
  sqlite3_bind_text(select->get(), 1, metrics::kDuration, -1, SQLITE_STATIC);
  sqlite3_bind_int64(select->get(), 2, model::kKernelCountersMeasured);
  std::vector<Placement> placements;
  int rc;
  while ((rc = sqlite3_step(select->get())) == SQLITE_ROW) {
    sqlite3_stmt* s = select->get();
    const int64_t api_start = sqlite3_column_int64(s, 1);
    const int64_t api_end = sqlite3_column_int64(s, 2);
    if (api_start <= 0 || api_end < api_start) continue;
    int64_t duration = api_end - api_start;
    if (sqlite3_column_type(s, 3) != SQLITE_NULL) {
      const double d = sqlite3_column_double(s, 3);
      if (std::isfinite(d) && d > 0 && d < static_cast<double>(duration)) {
        duration = static_cast<int64_t>(std::llround(d));
      }
    }
    placements.push_back({sqlite3_column_int64(s, 0), api_end - duration, api_end});
  }
  if (rc != SQLITE_DONE) return WriteError(db, rc, path, "cannot read measured kernels of");
  if (placements.empty()) return 0;
  absl::StatusOr<Stmt> update = Prepare(db, kPlace);
  if (!update.ok()) return update.status();
  if (rc = sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr); rc != SQLITE_OK) {
    return WriteError(db, rc, path, "cannot place measured kernels in");
  }
  for (const Placement& p : placements) {
    sqlite3_stmt* u = update->get();
    sqlite3_bind_int64(u, 1, p.start);
    sqlite3_bind_int64(u, 2, p.end);
    sqlite3_bind_int64(u, 3, model::kKernelTimePlaced);
    sqlite3_bind_int64(u, 4, p.rowid);
    if (rc = StepDone(u); rc != SQLITE_OK) break;
  }
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = WriteError(db, rc, path, "cannot place measured kernels in");
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return status;
  }
  return static_cast<int64_t>(placements.size());
}

}  // namespace cuscope::store
