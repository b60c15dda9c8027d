#include "lib/store/measured_times.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/model/metrics.h"
#include "lib/model/profile.h"
#include "lib/store/sqlite.h"

namespace cuscope::store {
namespace {

// A kernel's device, context and stream ids.
using StreamKey = std::array<int64_t, 3>;

// Where a measured kernel without times goes: its row, its launch and its times.
struct MeasuredPlacement {
  StreamKey stream = {0, 0, 0};
  int64_t rowid = 0;
  uint32_t correlation_id = 0;
  int64_t start = 0, end = 0;
  // Its duration is known (gpu__time_duration.sum, or CUPTI's of the signature's other
  // launches), not the whole call's.
  bool measured_duration = false;
  bool from_launch = false;  // kKernelFromLaunch
};

// Measured kernels without times, their API call's span (over every call of the
// correlation id: the runtime call and the driver call inside it), the profiler's
// duration of the kernel when its set has one, and what the kernel is (its flags and
// signature).
constexpr char kCandidates[] = R"sql(
WITH own AS (
  SELECT l.correlation_id AS cid, MIN(v.value) AS value FROM counter_launches AS l
    JOIN counter_values AS v ON v.set_id = l.set_id
    JOIN strings AS s ON s.id = v.metric_id
  WHERE s.text = ?1 GROUP BY l.correlation_id)
SELECT k.rowid, k.correlation_id, MIN(a.start_ns), MAX(a.end_ns), own.value,
  k.flags, k.name_id, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z,
  k.device_id, k.context_id, k.stream_id
FROM kernels AS k JOIN api_calls AS a ON a.correlation_id = k.correlation_id
  LEFT JOIN own ON own.cid = k.correlation_id
WHERE k.start_ns = 0 AND k.end_ns = 0 AND (k.flags & ?2) != 0
GROUP BY k.rowid)sql";

// The kernels CUPTI timed: what a placed kernel of their stream must not overlap.
constexpr char kTimed[] =
    "SELECT device_id, context_id, stream_id, start_ns, end_ns FROM kernels WHERE start_ns > 0";

// The profiler's durations of every set, with its signature.
constexpr char kSetDurations[] = R"sql(
SELECT c.name_id, c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z, v.value
FROM counter_sets AS c JOIN counter_values AS v ON v.set_id = c.id
  JOIN strings AS s ON s.id = v.metric_id
WHERE s.text = ?1)sql";

// The durations CUPTI timed of every kernel not measured, with its signature.
constexpr char kTracedDurations[] = R"sql(
SELECT name_id, grid_x, grid_y, grid_z, block_x, block_y, block_z, end_ns - start_ns
FROM kernels WHERE start_ns > 0 AND end_ns > start_ns AND (flags & ?1) = 0)sql";

// A kernel's name id, grid and block, from `first` on in a row.
using SignatureKey = std::array<int64_t, 7>;
SignatureKey KeyAt(sqlite3_stmt* s, int first) {
  SignatureKey key;
  for (int i = 0; i < 7; ++i) key[i] = sqlite3_column_int64(s, first + i);
  return key;
}

// A kernel's duration as the profiler gave it: positive, and under an hour (a value
// beyond is not a kernel's, and would overflow the placement's arithmetic).
constexpr double kLongestKernelNs = 3.6e12;
bool UsableDuration(sqlite3_stmt* s, int column, double* d) {
  if (sqlite3_column_type(s, column) == SQLITE_NULL) return false;
  *d = sqlite3_column_double(s, column);
  return std::isfinite(*d) && *d > 0 && *d < kLongestKernelNs;
}

using DurationsBySignature = absl::flat_hash_map<SignatureKey, double>;

// Signature -> the median of the durations a query gives (columns 0-6 the signature,
// 7 the duration): for kernels made from a launch whose own range gave no sample
// (rotate keeps a bounded number per signature).
// Only the signatures in `wanted`, when given.
absl::StatusOr<DurationsBySignature> MedianDurations(
    sqlite3* db, const std::string& path, sqlite3_stmt* select, const char* what,
    const absl::flat_hash_set<SignatureKey>* wanted = nullptr) {
  absl::flat_hash_map<SignatureKey, std::vector<double>> all;
  int rc;
  while ((rc = sqlite3_step(select)) == SQLITE_ROW) {
    double d = 0;
    if (!UsableDuration(select, 7, &d)) continue;
    const SignatureKey key = KeyAt(select, 0);
    if (wanted == nullptr || wanted->contains(key)) all[key].push_back(d);
  }
  if (rc != SQLITE_DONE) return WriteError(db, rc, path, what);
  DurationsBySignature median;
  for (auto& [key, values] : all) {
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    median[key] = values[values.size() / 2];
  }
  return median;
}

// For the signatures of `keys`: the median of the profiler's durations of each one's
// sets, or, for a signature never sampled (its sets cut, or seen only outside sets'
// periods), the median of the durations CUPTI timed for its launches not measured (the
// hold is process-wide: those ran outside sets). A signature with neither is absent.
// The CUPTI durations are read only when some signature lacks a sample, and a failure
// to read them leaves those unplaced, not the others.
absl::StatusOr<DurationsBySignature> SignatureDurations(sqlite3* db, const std::string& path,
                                                        const std::vector<SignatureKey>& keys) {
  absl::StatusOr<Stmt> sets = Prepare(db, kSetDurations);
  if (!sets.ok()) return sets.status();
  sqlite3_bind_text(sets->get(), 1, metrics::kDuration, -1, SQLITE_STATIC);
  absl::StatusOr<DurationsBySignature> found =
      MedianDurations(db, path, sets->get(), "cannot read counter sets of");
  if (!found.ok()) return found.status();
  absl::flat_hash_set<SignatureKey> missing;
  for (const SignatureKey& key : keys) {
    if (!found->contains(key)) missing.insert(key);
  }
  if (missing.empty()) return found;
  absl::StatusOr<Stmt> traced = Prepare(db, kTracedDurations);
  if (!traced.ok()) return found;
  sqlite3_bind_int64(traced->get(), 1, model::kKernelCountersMeasured);
  absl::StatusOr<DurationsBySignature> timed =
      MedianDurations(db, path, traced->get(), "cannot read kernels of", &missing);
  if (timed.ok()) found->insert(timed->begin(), timed->end());
  return found;
}

constexpr char kPlace[] =
    "UPDATE kernels SET start_ns = ?1, end_ns = ?2, flags = flags | ?3 WHERE rowid = ?4";

// Kernels made from launches run in their stream's order, one after another: each
// starts when its call returned or when the kernel before it on the stream (placed, or
// timed by CUPTI) ended, whichever is later.
absl::Status SerializeOnStreams(sqlite3* db, const std::string& path,
                                std::vector<MeasuredPlacement>& placements) {
  absl::flat_hash_map<StreamKey, std::vector<MeasuredPlacement*>> by_stream;
  for (MeasuredPlacement& p : placements) {
    if (p.from_launch && p.measured_duration) by_stream[p.stream].push_back(&p);
  }
  if (by_stream.empty()) return absl::OkStatus();
  absl::StatusOr<Stmt> select = Prepare(db, kTimed);
  if (!select.ok()) return select.status();
  absl::flat_hash_map<StreamKey, std::vector<std::pair<int64_t, int64_t>>> timed;
  int rc;
  while ((rc = sqlite3_step(select->get())) == SQLITE_ROW) {
    sqlite3_stmt* s = select->get();
    const StreamKey key = {sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
                           sqlite3_column_int64(s, 2)};
    if (by_stream.contains(key)) {
      timed[key].emplace_back(sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4));
    }
  }
  if (rc != SQLITE_DONE) return WriteError(db, rc, path, "cannot read kernels of");
  for (auto& [key, list] : by_stream) {
    std::sort(list.begin(), list.end(), [](const MeasuredPlacement* a, const MeasuredPlacement* b) {
      return a->start < b->start;
    });
    std::vector<std::pair<int64_t, int64_t>>& spans = timed[key];
    std::sort(spans.begin(), spans.end());
    // The latest end of the timed kernels begun by each start (in order of start).
    std::vector<int64_t> ended(spans.size());
    for (size_t i = 0; i < spans.size(); ++i) {
      ended[i] = std::max(spans[i].second, i > 0 ? ended[i - 1] : spans[i].second);
    }
    int64_t free_at = 0;
    for (MeasuredPlacement* p : list) {
      const auto begun =
          std::upper_bound(spans.begin(), spans.end(), std::make_pair(p->start, INT64_MAX));
      if (begun != spans.begin()) free_at = std::max(free_at, ended[begun - spans.begin() - 1]);
      const int64_t duration = p->end - p->start;
      p->start = std::max(p->start, free_at);
      p->end = p->start + duration;
      free_at = p->end;
    }
  }
  return absl::OkStatus();
}

// The placements of every kernel of the profile open in `db` that has
// kKernelCountersMeasured, no times, an API call with its correlation id and a measured
// duration (reads only).
absl::StatusOr<std::vector<MeasuredPlacement>> FindMeasuredPlacements(sqlite3* db,
                                                                      const std::string& path) {
  absl::StatusOr<Stmt> select = Prepare(db, kCandidates);
  if (!select.ok()) return select.status();
  sqlite3_bind_text(select->get(), 1, metrics::kDuration, -1, SQLITE_STATIC);
  sqlite3_bind_int64(select->get(), 2, model::kKernelCountersMeasured);
  std::vector<MeasuredPlacement> placements;
  std::vector<std::pair<size_t, SignatureKey>> by_signature;  // launch-made, no duration
  int rc;
  while ((rc = sqlite3_step(select->get())) == SQLITE_ROW) {
    sqlite3_stmt* s = select->get();
    const int64_t api_start = sqlite3_column_int64(s, 2);
    const int64_t api_end = sqlite3_column_int64(s, 3);
    if (api_start <= 0 || api_end < api_start) continue;
    MeasuredPlacement p;
    p.stream = {sqlite3_column_int64(s, 13), sqlite3_column_int64(s, 14),
                sqlite3_column_int64(s, 15)};
    p.rowid = sqlite3_column_int64(s, 0);
    p.correlation_id = static_cast<uint32_t>(sqlite3_column_int64(s, 1));
    p.from_launch = (sqlite3_column_int64(s, 5) & model::kKernelFromLaunch) != 0;
    double d = 0;
    const bool has = UsableDuration(s, 4, &d);
    if (p.from_launch) {
      // An asynchronous launch: the kernel runs after its call returns.
      p.start = p.end = api_end;
      if (has) {
        p.end = api_end + static_cast<int64_t>(std::llround(d));
        p.measured_duration = true;
      } else {
        by_signature.emplace_back(placements.size(), KeyAt(s, 6));
      }
    } else {
      // Kernel replay runs every pass inside the call: the kernel ends with it.
      int64_t duration = api_end - api_start;
      if (has && d < static_cast<double>(duration)) {
        duration = static_cast<int64_t>(std::llround(d));
        p.measured_duration = true;
      }
      p.start = api_end - duration;
      p.end = api_end;
    }
    placements.push_back(p);
  }
  if (rc != SQLITE_DONE) return WriteError(db, rc, path, "cannot read measured kernels of");
  if (!by_signature.empty()) {
    std::vector<SignatureKey> keys;
    for (const auto& entry : by_signature) keys.push_back(entry.second);
    auto durations = SignatureDurations(db, path, keys);
    if (!durations.ok()) return durations.status();
    for (const auto& [i, key] : by_signature) {
      auto it = durations->find(key);
      if (it == durations->end()) continue;
      placements[i].end = placements[i].start + static_cast<int64_t>(std::llround(it->second));
      placements[i].measured_duration = true;
    }
  }
  if (absl::Status st = SerializeOnStreams(db, path, placements); !st.ok()) return st;
  placements.erase(std::remove_if(placements.begin(), placements.end(),
                                  [](const MeasuredPlacement& p) { return !p.measured_duration; }),
                   placements.end());
  return placements;
}

}  // namespace

absl::StatusOr<int64_t> PlaceMeasuredKernels(sqlite3* db, const std::string& path) {
  absl::StatusOr<std::vector<MeasuredPlacement>> found = FindMeasuredPlacements(db, path);
  if (!found.ok()) return found.status();
  const std::vector<MeasuredPlacement>& placements = *found;
  if (placements.empty()) return 0;
  int rc;
  absl::StatusOr<Stmt> update = Prepare(db, kPlace);
  if (!update.ok()) return update.status();
  if (rc = sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr); rc != SQLITE_OK) {
    return WriteError(db, rc, path, "cannot place measured kernels in");
  }
  for (const MeasuredPlacement& p : placements) {
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

void PlaceMeasuredOnRead(sqlite3* db, const std::string& path,
                         std::vector<model::KernelRecord>& kernels) {
  auto unplaced = [](const model::KernelRecord& k) {
    return (k.flags & model::kKernelCountersMeasured) != 0 && k.start_ns == 0 && k.end_ns == 0;
  };
  if (std::none_of(kernels.begin(), kernels.end(), unplaced)) return;
  absl::StatusOr<std::vector<MeasuredPlacement>> found = FindMeasuredPlacements(db, path);
  if (!found.ok() || found->empty()) return;
  // Rows are read in rowid order, and a profile's rows are never deleted: row r is
  // kernels[r - 1]; else the unplaced kernel of that launch.
  absl::flat_hash_map<uint32_t, size_t> by_launch;
  for (const MeasuredPlacement& p : *found) {
    size_t i = static_cast<size_t>(p.rowid - 1);
    if (p.rowid < 1 || i >= kernels.size() || kernels[i].correlation_id != p.correlation_id ||
        !unplaced(kernels[i])) {
      if (by_launch.empty()) {
        for (size_t j = 0; j < kernels.size(); ++j) {
          if (unplaced(kernels[j])) by_launch.emplace(kernels[j].correlation_id, j);
        }
      }
      auto it = by_launch.find(p.correlation_id);
      if (it == by_launch.end() || !unplaced(kernels[it->second])) continue;
      i = it->second;
    }
    kernels[i].start_ns = static_cast<uint64_t>(p.start);
    kernels[i].end_ns = static_cast<uint64_t>(p.end);
    kernels[i].flags |= model::kKernelTimePlaced;
  }
}

}  // namespace cuscope::store
