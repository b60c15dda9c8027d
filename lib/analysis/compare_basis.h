// What `cuscope diff` may compare: each profile's settings and what its profiler
// removed from or added to the program's records (launches measured with counters,
// records held off while counter sets ran, records CUPTI dropped, time spent holding
// the program), and the kernel time over the launches both profiles timed alike.
// Pure functions, no English: the report words them (docs/reports.md, "Comparing two
// runs").
#ifndef CUSCOPE_LIB_ANALYSIS_COMPARE_BASIS_H_
#define CUSCOPE_LIB_ANALYSIS_COMPARE_BASIS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::analysis {

// A change of the comparable kernel time beyond this share of the base's is a change
// of the program; within it, timing noise (docs/reports.md).
inline constexpr double kKernelTimeChangePct = 3;

// How one profile was taken, and what its profiler did to the records.
struct ProfilerEffects {
  // The counter strategy ("rotate", "kernel replay", "sweep", "region"; empty: none).
  std::string counters;
  // The settings the run recorded (model::RunNotes::settings), empty for a profile
  // that recorded none.
  std::vector<std::pair<std::string, std::string>> settings;
  // Kernel records flagged kKernelCountersMeasured: serialized and slowed.
  uint64_t measured_launches = 0;
  // Launches the counters measured (counters.launches_measured) that have no kernel
  // record: held off while sets ran and never made (earlier versions of rotate).
  uint64_t launches_without_records = 0;
  // Copy, memset and sync records were held off while counter sets ran (rotate's
  // counters.kernel_trace note): their counts are short of the program's.
  bool copies_held = false;
  // Copies and memsets were not traced at all (the "trace" setting leaves them out).
  bool memory_untraced = false;
  // Records CUPTI dropped (activity buffers exhausted).
  uint64_t dropped_records = 0;
  // Milliseconds the program's threads were held by counter measurement
  // (counters.measure_ms; 0 when not noted).
  double held_ms = 0;

  // Every launch has its kernel record.
  bool kernel_records_complete() const {
    return launches_without_records == 0 && dropped_records == 0;
  }
  // The copies and memsets recorded are all the program's.
  bool memory_complete() const { return !copies_held && !memory_untraced && dropped_records == 0; }
  // Nothing was removed or added: the profile's numbers are the program's as traced.
  bool plain() const {
    return counters.empty() && measured_launches == 0 && kernel_records_complete() &&
           memory_complete() && held_ms == 0;
  }
};

ProfilerEffects EffectsOf(const model::Profile& profile);

// One side of a kernel's comparable time.
struct ComparableSide {
  uint64_t launches = 0;  // launches compared
  uint64_t total_ns = 0;  // their durations
  uint64_t left_out = 0;  // launches left out: timed otherwise than on the other side
};

// Why a kernel (or the whole kernel time) has launches left out of the comparison.
enum class LeftOut : uint8_t {
  kNone = 0,
  kMeasured,  // measured with counters on one side (or with other strategies)
  kNoRecord,  // the other side's profiler removed records: launches without a partner
  kUnusable,  // unusable times (start 0, end before start) on one side
};

// The kernel time over the launches both profiles timed alike. A kernel's launches are
// paired in launch order (correlation id): the i-th of BASE with the i-th of NEW. A
// pair counts when both launches are in their profile's kernel time (KernelTimeMask)
// and were timed the same way: neither measured with counters, or both measured by one
// strategy (kernels measured at every launch on both sides). Launches without a
// partner (the program launched the kernel more often on one side, or a kernel is on
// one side only) count when the other side's profiler kept every kernel record; else
// they are left out (its records are missing, not its launches).
struct ComparableKernel {
  ComparableSide base, next;
  LeftOut why = LeftOut::kNone;  // the first reason met, when any launch was left out
};

struct KernelTimeComparison {
  ComparableSide base, next;
  std::map<std::string, ComparableKernel> kernels;  // by display name
  // Whether the comparable launches are each side's timed launches, so that the
  // comparison is of the profiles' own kernel times (Summary::kernel_ns); set by Compare.
  bool whole = true;
  double change_percent() const;  // of the base's comparable time
  // Beyond kKernelTimeChangePct: a change of the program.
  bool changed() const;
};

KernelTimeComparison CompareKernelTime(const model::Profile& base, const ProfilerEffects& base_fx,
                                       const model::Profile& next, const ProfilerEffects& next_fx);

}  // namespace cuscope::analysis

#endif  // CUSCOPE_LIB_ANALYSIS_COMPARE_BASIS_H_
