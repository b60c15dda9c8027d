// Which launches the counter sampler measures, and how measured launches become
// counter sets: windows, passes, sample budgets, set completion and matching. Pure
// (no CUPTI): the sampler asks it, makes the Range Profiler calls, and tells it the
// outcome. Not thread-safe: the sampler guards it with its lock.
//
// Rotate (user replay): successive windows of launches of one kernel signature are
// the passes of one set (window k collects pass k mod P); range i of every pass must
// be the same signature, or that range's set is dropped. Kernel replay: one window
// of one launch, CUPTI replays it once per pass. Region counters: each instance of a
// matching region is one pass (one range) of its set.
#ifndef CUSCOPE_LIB_COLLECT_PLANNER_H_
#define CUSCOPE_LIB_COLLECT_PLANNER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/options.h"
#include "lib/model/pattern.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

// Which strategy a configuration uses (auto: rotate only when every launch is
// measured, kernel replay when a bounded number of samples per signature is).
bool UsesRotate(const CounterOptions& options);
// True if the metrics include SASS instruction counts (smsp__sass_*), which CUPTI
// gathers by instrumenting kernels. Measured on the H200 (CUDA 13.0): with rotate
// (user replay) and kernel activity tracing on together, they read 0 (FFMA of a
// SAXPY on 2^26 floats: 0 instead of 67,108,864); with kernel tracing off, exact.
bool NeedsInstrumentedCounters(const CounterOptions& options);

// A kernel signature: launches of one signature are the passes of one set.
struct Signature {
  std::string name;
  model::Dim3 grid, block;
  bool operator==(const Signature& o) const {
    return name == o.name && grid == o.grid && block == o.block;
  }
  bool operator!=(const Signature& o) const { return !(*this == o); }
  template <typename H>
  friend H AbslHashValue(H h, const Signature& s) {
    return H::combine(std::move(h), s.name, s.grid.x, s.grid.y, s.grid.z, s.block.x, s.block.y,
                      s.block.z);
  }
};

struct Launch {
  Signature sig;
  uint32_t correlation_id = 0;  // 0 for a region instance
};

struct CounterStats {
  uint64_t launches_seen = 0;
  uint64_t launches_measured = 0;  // region instances in region mode
  uint64_t sets_complete = 0;
  uint64_t sets_dropped = 0;  // signatures of a set's passes did not match
  uint64_t setup_ns = 0;      // profiler initialization, metric configuration, enable
  uint64_t measure_ns = 0;    // inside measured launches and decoding
};

// One context's windows: the set in progress, one window per pass so far.
struct ContextPlan {
  bool window_open = false;
  size_t window_cap = 1;
  Signature window_sig;
  std::optional<Signature> last_sig;  // the last launch seen on this context
  bool last_wanted = false;
  size_t next_pass = 0;  // what the last Range Profiler Stop said comes next
  size_t next_level = 1;
  std::vector<std::vector<Launch>> windows;
};

// Range i of a decoded set: its signature and the launches that measured it.
struct RangeMatch {
  bool complete = false;  // every pass saw the same signature (and, rotate, all passes ran)
  Signature sig;
  std::vector<uint32_t> correlation_ids;  // non-zero ones, pass order
};

class Planner {
 public:
  Planner(const CounterOptions& options, bool rotate, bool region_mode);

  bool rotate() const { return rotate_; }
  bool region_mode() const { return region_mode_; }
  // From the metric configuration (known at the first measured context).
  void set_passes(size_t passes) { passes_ = passes; }
  size_t passes() const { return passes_; }
  CounterStats& stats() { return stats_; }
  const CounterStats& stats() const { return stats_; }

  // A kernel's demangled name and whether it matches the kernel filter, cached by
  // CUPTI's symbol pointer.
  const std::pair<std::string, bool>& KernelName(const char* symbol);

  // Launch callbacks (API_ENTER): whether this launch is to be measured. Counts the
  // matching launches (for launch_skip); `regions` is asked only when counters are
  // limited to regions.
  bool WantSample(const Signature& sig, bool matches, const RegionStack& regions);
  // Whether the window open on `c` must end before this launch.
  bool MustCloseBefore(const ContextPlan& c, const Signature& sig, bool want) const;
  // Whether the open window has no room for another launch.
  bool WindowFull(const ContextPlan& c) const { return c.windows.back().size() >= c.window_cap; }
  // At a launch's API_EXIT (rotate), with no window open: whether one opens now for
  // the next launch of the last signature seen.
  bool ShouldOpenAfter(const ContextPlan& c) const;
  // A window opened (the Range Profiler started): its capacity, and how the next
  // window of this signature grows. `max_ranges`: the counter image's ranges.
  void OpenWindow(ContextPlan& c, const Signature& sig, size_t max_ranges);
  // A launch went into the current window (rotate) or was replayed (kernel replay).
  void CountMeasured() { ++stats_.launches_measured; }

  // Decoding: matches range i of every window. `ranges`: ranges the image decoded;
  // launches past them count as dropped. Complete ranges are not yet counted.
  std::vector<RangeMatch> Match(const std::vector<std::vector<Launch>>& windows, size_t ranges);
  // A range's values were evaluated and are finite: one more sample.
  void SetComplete(const Signature& sig);
  void SetDropped() { ++stats_.sets_dropped; }
  uint64_t Samples(const Signature& sig) const;

  // Region counters: whether the instance of `name` that begins now is measured
  // (counts matching instances for launch_skip when no set is in progress).
  bool WantRegion(const std::string& name);
  // A measured instance ended: one pass of the set in progress (its first path
  // names every pass, so that they match).
  void AddRegionPass(ContextPlan& c, const std::string& name, const std::string& path);
  // The set's passes were all submitted and decoded; `completed` if it gave a sample.
  void EndRegionSet(bool completed);

 private:
  bool InMatchingRegion(const RegionStack& regions);
  bool BudgetSpent(const Signature& sig) const;

  CounterOptions options_;
  bool rotate_;
  bool region_mode_;
  size_t passes_ = 0;
  // The filters, compiled once; each remembers its answer per name, so the launch
  // path matches a kernel or region name once. Unset: no filter (all match).
  std::optional<model::CachedPattern> kernels_;
  std::optional<model::CachedPattern> regions_;
  CounterStats stats_;
  uint64_t matching_seen_ = 0;
  absl::flat_hash_map<const char*, std::pair<std::string, bool>> names_;
  absl::flat_hash_map<Signature, uint64_t> samples_;    // complete samples per signature
  absl::flat_hash_map<Signature, size_t> window_size_;  // rotate: next window length
  std::string region_set_name_;                         // the region whose set is in progress
  std::string region_set_path_;                         // its first instance's path: the set's name
  absl::flat_hash_map<std::string, uint64_t> region_samples_;  // complete sets per name
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_PLANNER_H_
