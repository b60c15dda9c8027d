// Times for kernels measured by kernel replay. CUPTI writes 0 as their start and end
// (measured on the H200, CUDA 13.0): without times they would vanish from the
// timeline, the regions and the trace. The replay runs inside the launch's own API
// call, so the kernel is placed at the end of that call, as long as the profiler's
// gpu__time_duration.sum (or, without it, the whole call), and flagged
// kKernelTimePlaced.
#ifndef CUSCOPE_LIB_STORE_MEASURED_TIMES_H_
#define CUSCOPE_LIB_STORE_MEASURED_TIMES_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace cuscope::store {

// Places every kernel of the profile open in `db` that has kKernelCountersMeasured,
// no times and an API call with its correlation id. Returns how many were placed.
absl::StatusOr<int64_t> PlaceMeasuredKernels(sqlite3* db, const std::string& path);

}  // namespace cuscope::store

#endif  // CUSCOPE_LIB_STORE_MEASURED_TIMES_H_
