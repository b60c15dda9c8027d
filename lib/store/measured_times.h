// Times for measured kernels without them, flagged kKernelTimePlaced: by the writer
// when the run ends, and by the reader in memory for a file whose run ended before
// (killed) or that an earlier version wrote. Without times they would vanish from the
// timeline, the regions and the trace.
// - Kernel replay: CUPTI writes 0 as the start and end (CUDA 13.0). The replay
//   runs inside the launch's own API call, so the kernel is placed at the end of that
//   call, as long as the profiler's gpu__time_duration.sum (which every measurement
//   holds; without it, not placed).
// - Made from the launch (kKernelFromLaunch: rotate held CUPTI's records off while its
//   set ran): from the end of the API call (the launch is asynchronous), or from the
//   end of the kernel before it on its stream when that is later (placed or timed by
//   CUPTI: a stream runs its kernels one at a time), as long as the duration of its own
//   sample or, when its range gave none (the signature's budget was spent, the range
//   was dropped), the median of its signature's samples, or, for a signature never
//   sampled, the median of the durations CUPTI timed for its launches that were not
//   measured (the hold is process-wide: those ran outside sets); without any, not placed.
#ifndef CUSCOPE_LIB_STORE_MEASURED_TIMES_H_
#define CUSCOPE_LIB_STORE_MEASURED_TIMES_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/model/profile.h"

namespace cuscope::store {

// Places every kernel of the profile open in `db` that has kKernelCountersMeasured, no
// times, an API call with its correlation id and a measured duration (a whole launch
// call of kernel replay holds every pass: GPU busy would count seconds that were not
// the kernel's), flagged kKernelTimePlaced. Returns how many were placed.
absl::StatusOr<int64_t> PlaceMeasuredKernels(sqlite3* db, const std::string& path);

// The same placements made in memory on `kernels` (all of the file's, in row order),
// for the reader; best effort: a file it cannot place is read as it is.
void PlaceMeasuredOnRead(sqlite3* db, const std::string& path,
                         std::vector<model::KernelRecord>& kernels);

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_MEASURED_TIMES_H_
