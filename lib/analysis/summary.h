// Summaries of a profile: what `nsys stats` reports, as plain structs.
// Pure functions: profile in, findings out. No I/O, no CUPTI.
#ifndef CUSCOPE_LIB_ANALYSIS_SUMMARY_H_
#define CUSCOPE_LIB_ANALYSIS_SUMMARY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/model/profile.h"

namespace cuscope::analysis {

// Statistics of a set of durations, in nanoseconds.
struct DurationStats {
  uint64_t count = 0;
  uint64_t total_ns = 0;
  double avg_ns = 0;
  double median_ns = 0;
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
  double stddev_ns = 0;  // sample standard deviation (n-1), 0 for one value
};
// Takes the durations by value (it sorts them).
DurationStats ComputeStats(std::vector<uint64_t> durations_ns);

// One row of the GPU kernel summary (nsys stats' cuda_gpu_kern_sum).
struct KernelSummaryRow {
  std::string name;         // demangled
  double time_percent = 0;  // of the total kernel time
  DurationStats stats;
  // Launches slowed by counter collection. They are left out of `stats` unless every
  // launch of the kernel was measured (`all_measured`), in which case stats use them all.
  uint64_t measured_launches = 0;
  bool all_measured = false;
};

// One row of the CUDA API summary (cuda_api_sum).
struct ApiSummaryRow {
  std::string name;
  double time_percent = 0;
  DurationStats stats;
};

// One row of the memory-operation summary (cuda_gpu_mem_time_sum + mem_size_sum).
struct MemorySummaryRow {
  std::string operation;  // "[CUDA memcpy HtoD pageable]", "[CUDA memset]", ...
  double time_percent = 0;
  DurationStats stats;
  uint64_t total_bytes = 0;
  double bandwidth_gbps = 0;  // total bytes / total time, GB/s (1e9)
};

struct DeviceBusy {
  uint32_t device_id = 0;
  std::string device_name;
  uint64_t busy_ns = 0;     // union of kernel, memcpy and memset intervals
  uint64_t kernel_ns = 0;   // union of kernel intervals
  double busy_percent = 0;  // of wall time
  // Of the program's wall time: the wall less cuscope's own time (Summary::own_ns); equal
  // to busy_percent in a profile without own time.
  double program_busy_percent = 0;
};

struct Summary {
  uint64_t wall_ns = 0;  // span of all records (or the run's start..end when known)
  std::vector<KernelSummaryRow> kernels;  // ranked by total time, descending
  std::vector<ApiSummaryRow> api;         // ranked by total time, descending
  std::vector<MemorySummaryRow> memory;   // ranked by total time, descending
  std::vector<DeviceBusy> devices;
  // Records of each kind, as the profile holds them (usable times or not, measured or
  // not): "kernels" is every kernel record, i.e. every launch recorded.
  uint64_t kernel_count = 0, memcpy_count = 0, memset_count = 0, api_count = 0, sync_count = 0,
           range_count = 0;
  // Kernel time (docs/reports.md, "One definition per number"): the sum of the
  // durations of the timed launches (KernelTimeMask), which the kernels table's rows
  // divide among them; timed_launches is their count (the rows' instances together).
  uint64_t kernel_ns = 0;
  uint64_t timed_launches = 0;
  // Kernel records with usable times measured with counters, and of those the ones
  // left out of kernel time (their kernel has launches that were not measured).
  uint64_t measured_launches = 0;
  uint64_t measured_left_out = 0;
  uint64_t dropped_records = 0;
  // Records left out of every statistic because their times are not usable
  // (start 0, or end before start). They are still in the counts above.
  uint64_t invalid_records = 0;
  // cuscope's own time (own_time.h): the profiler's work that held the program.
  uint64_t own_ns = 0;
};

Summary Summarize(const model::Profile& profile);

// The one rule of kernel time, per kernel record in profile order: 1 when the launch is
// timed, i.e. its times are usable and counters did not measure it, or counters
// measured every launch with usable times of its kernel (display name), whose
// statistics then rest on those; else 0. A launch measured with counters was
// serialized and slowed, so while its kernel has launches that were not, it is left out.
std::vector<uint8_t> KernelTimeMask(const model::Profile& profile);

// Union length of [start, end) intervals (need not be sorted).
uint64_t UnionLength(std::vector<std::pair<uint64_t, uint64_t>> intervals);

// The name a kernel is reported under: its demangled name, else its mangled name
// (writers demangle it for display), else "<unnamed kernel>".
const std::string& KernelDisplayName(const model::Profile& profile,
                                     const model::KernelRecord& kernel);

// Dense ids of kernels' display names (KernelDisplayName), 0, 1, ... in first-seen
// order: each (name id, mangled id) pair is resolved once, and pairs that show the
// same name share an id.
class KernelNameIndex {
 public:
  explicit KernelNameIndex(const model::Profile& profile) : profile_(profile) {}
  uint32_t Id(const model::KernelRecord& k);
  const std::string& Name(uint32_t id) const { return *names_[id]; }
  size_t size() const { return names_.size(); }

 private:
  const model::Profile& profile_;
  std::vector<const std::string*> names_;
  absl::flat_hash_map<std::string_view, uint32_t> by_name_;
  absl::flat_hash_map<uint64_t, uint32_t> by_ids_;  // name id << 32 | mangled id
};

// Whether a record's times can be used: start set and end not before start.
template <typename Record>
bool HasValidTimes(const Record& r) {
  return r.start_ns != 0 && r.end_ns >= r.start_ns;
}

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_SUMMARY_H_
