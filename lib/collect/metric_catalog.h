// What `cuscope run` checks before the program starts and `cuscope metrics` lists:
// requested metric names against one chip or every supported chip (lib/collect/
// chips.h), through the Profiler Host API (no GPU needed). One host object per chip,
// made once per process and kept.
#ifndef CUSCOPE_LIB_COLLECT_METRIC_CATALOG_H_
#define CUSCOPE_LIB_COLLECT_METRIC_CATALOG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/collect/metric_host.h"
#include "lib/collect/metric_resolve.h"

namespace cuscope::collect {

// The chip's host object, made at the first call for that chip (thread-safe; the
// object itself is used from one thread at a time by its callers).
absl::StatusOr<MetricHost*> HostFor(const std::string& chip);

// `request`: named sets and raw metric names (CUSCOPE_METRICS). Every set name is
// valid (its metrics are resolved per chip, what a chip lacks dropped); a raw name
// must be valid on `chip`, or, when `chip` is "", on at least one supported chip.
// InvalidArgument naming the first bad name and the nearest sets and metrics.
absl::Status CheckRequest(const std::vector<std::string>& request, const std::string& chip);

// The request (sets expanded) resolved for `chip`.
absl::StatusOr<Resolution> ResolveFor(const std::string& chip,
                                      const std::vector<std::string>& request);

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_METRIC_CATALOG_H_
