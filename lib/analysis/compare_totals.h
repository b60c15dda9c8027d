// Two profiles' memory operations and CUDA API calls side by side (`cuscope diff`):
// per operation ("[CUDA memcpy HtoD pageable]", "[CUDA memset]") or API name, the
// count, bytes and total time on each side and their changes. Pure functions over
// the summaries (lib/analysis/summary.h), whose names they keep.
#ifndef CUSCOPE_LIB_ANALYSIS_COMPARE_TOTALS_H_
#define CUSCOPE_LIB_ANALYSIS_COMPARE_TOTALS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "lib/analysis/summary.h"
#include "lib/model/checked.h"

namespace cuscope::analysis {

// Change from `base` to `next` in % of `base`: +inf when only `next` is non-zero (it
// appeared), 0 when both are zero, -100 when `next` is zero (it is gone).
inline double ChangePercent(double base, double next) {
  if (base == 0) return next == 0 ? 0 : std::numeric_limits<double>::infinity();
  return 100.0 * (next - base) / base;
}

// One side's totals of an operation or API name (zero when absent there).
struct Totals {
  uint64_t count = 0;     // operations or calls
  uint64_t bytes = 0;     // memory operations only
  uint64_t total_ns = 0;  // sum of durations (GPU time of an operation, CPU time of a call)
  // Bytes per nanosecond, i.e. GB/s (1e9 B/s); 0 without time.
  double gbps() const {
    return total_ns > 0 ? static_cast<double>(bytes) / static_cast<double>(total_ns) : 0.0;
  }
};

struct TotalsDelta {
  std::string name;
  // API calls: the call blocks the CPU until the GPU (or a stream, or an event) is
  // done: a synchronization or a synchronous copy (advise::KindOfApi).
  bool synchronizing = false;
  Totals base, next;
  // Memory operations: the counts differ where a profiler left records out (copies and
  // memsets held off in counter sets, not traced, dropped): not a change of the program,
  // so not compared (ProfilerEffects::memory_complete says which side).
  bool not_compared = false;
  int64_t time_change_ns() const {
    return model::SaturatingDifference(next.total_ns, base.total_ns);
  }
  int64_t count_change() const { return model::SaturatingDifference(next.count, base.count); }
  int64_t bytes_change() const { return model::SaturatingDifference(next.bytes, base.bytes); }
  double time_change_percent() const { return Pct(base.total_ns, next.total_ns); }
  double count_change_percent() const { return Pct(base.count, next.count); }
  double bytes_change_percent() const { return Pct(base.bytes, next.bytes); }

 private:
  static double Pct(uint64_t b, uint64_t n) {
    return ChangePercent(static_cast<double>(b), static_cast<double>(n));
  }
};

// Sums of `rows` (their counts, bytes and times on each side) under `name`.
TotalsDelta SumOf(const std::vector<TotalsDelta>& rows, std::string name);

// Memory operations by the summary's operation name, by |change of total time|
// (largest first, then by name).
std::vector<TotalsDelta> CompareMemory(const Summary& base, const Summary& next);

// CUDA API calls by name, by |change of total time| (largest first, then by name).
std::vector<TotalsDelta> CompareApi(const Summary& base, const Summary& next);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COMPARE_TOTALS_H_
