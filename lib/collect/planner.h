// Which launches the counter sampler measures, and how measured launches become
// counter sets: windows, passes, sample budgets, set completion and matching. Pure
// (no CUPTI): the sampler asks it, makes the Range Profiler calls, and tells it the
// outcome. Not thread-safe: the sampler guards it with its lock.
//
// Rotate (user replay): back-to-back windows of m periods of the context's launch
// sequence are the passes of one set (rotate_driver.h, launch_period.h); range i of
// every pass must be the same signature, or that range is dropped. Kernel replay: one window
// of one launch, CUPTI replays it once per pass. The sweep (user replay, one pass):
// each window of consecutive launches is a complete set by itself (sweep_driver.h).
// Region counters: each instance of a matching region is one pass (one range) of its set.
#ifndef CUSCOPE_LIB_COLLECT_PLANNER_H_
#define CUSCOPE_LIB_COLLECT_PLANNER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/launch_period.h"
#include "lib/collect/options.h"
#include "lib/collect/set_budget.h"
#include "lib/model/pattern.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

// True if the metrics include SASS instruction counts (smsp__sass_*), which CUPTI
// gathers by instrumenting kernels. With rotate (user replay) and kernel activity
// tracing on together they read 0; with kernel tracing off they are exact, so the
// callers hold kernel records off while such a set runs (docs/validation.md, "Facts
// the code relies on").
bool NeedsInstrumentedCounters(const CounterOptions& options);

// How launches are measured (counter_strategy.h).
enum class LaunchMode {
  kPending,  // decided by the configuration's passes, once they are known
  kKernelReplay,
  kRotate,
  kSweep,
  kRefused,  // --replay=sweep on a configuration the sweep cannot measure: no counters
};
// The mode for `options` on a configuration of `passes` passes (0: not known yet).
// kKernel and kRotate as asked. The sweep measures one-pass configurations without
// instrumented counters (a window opens inside a launch's API_ENTER, where they would
// miss the launch): kAuto takes it for those, else kernel replay for a bounded number
// of samples per signature and rotate for every launch; kSweep takes it for those and
// refuses any other. kPending while the passes decide and are not known.
LaunchMode ChooseLaunchMode(const CounterOptions& options, size_t passes);
// Why --replay=sweep measures nothing for `options` (ChooseLaunchMode gave kRefused);
// `passes` as known (0: not yet).
std::string SweepRefusal(const CounterOptions& options, size_t passes);
// An NCCL kernel, by its demangled name: ncclKernel_* (NCCL up to 2.18),
// ncclDevKernel_* (2.19 on), ncclSymkDevKernel_* (symmetric kernels), or any other
// function whose own name (past a return type, namespaces and template arguments)
// starts with "nccl" and names a Kernel. Such a kernel waits on other GPUs (a
// collective) and is never measured: replaying it or serializing it in a Range
// Profiler window could hang the job.
bool IsNcclKernel(std::string_view demangled);

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

// The signatures with nothing left to measure, as a copy the buffer thread can read
// while the launch callbacks are off (CounterSampler::Tick): those whose budget is
// spent, and the kernel names the kernel filter leaves out.
struct SettledSignatures {
  bool all = false;  // launch_count reached: nothing is measured any more
  absl::flat_hash_set<Signature> spent;
  absl::flat_hash_set<std::string> unmatched;  // demangled names
  bool Contains(const Signature& sig) const {
    return all || spent.contains(sig) || unmatched.contains(sig.name);
  }
};

struct Launch {
  Signature sig;
  uint32_t correlation_id = 0;  // 0 for a region instance
  bool wanted = true;           // rotate: its range's sample is kept (filters, budget)
  // The sweep: a launch that passed the filters but not the budget; measured when it
  // falls in an open window anyway, its range is kept as a further sample of its
  // signature (a persistent kernel launches one grid for every size of its problem,
  // so one signature may hold launches of several sizes).
  bool extra = false;
};

// Why a range measured in a set gave no sample.
enum class DropReason {
  kMismatch,     // a later pass saw another signature at this range
  kNotDecoded,   // decoding failed, or gave fewer ranges than launches or not where expected
  kInterrupted,  // a pass was cut short (the sequence left its period) before this range
  kGraph,        // a graph launch cut the set short
  kEnd,          // the run ended before the set's passes all ran
  kEvaluate,     // the values did not evaluate to finite numbers
  kUnsafe,       // an NCCL kernel or a launch during stream capture cut the set short
  kCount
};
const char* DropReasonName(DropReason r);

struct CounterStats {
  uint64_t launches_seen = 0;
  uint64_t launches_measured = 0;  // rotate, sweep: launches inside windows (ranges); region
                                   // instances
  uint64_t sets_complete = 0;      // samples
  uint64_t sets_dropped = 0;       // ranges that gave no sample, every reason
  uint64_t dropped_by[static_cast<int>(DropReason::kCount)] = {};
  uint64_t not_kept = 0;              // rotate, sweep: complete ranges of launches the filters or
                                      // budget exclude
  uint64_t extra_kept = 0;            // sweep: further samples kept (Launch::extra)
  uint64_t sets_started = 0;          // rotate: sets (P passes each) begun
  uint64_t sets_held_off = 0;         // rotate: times a set waited for a longer run of its period
  uint64_t sets_deferred = 0;         // rotate, per signature: times a set waited for its run to
                                      // last as long as the set (RotateDriver::RunNotYetLongEnough)
  uint64_t period = 0;                // rotate: the last period found (launches)
  uint64_t windows_opened = 0;        // sweep: windows (one complete set each)
  uint64_t windows_unproductive = 0;  // sweep: windows that kept no sample
  uint64_t backoffs = 0;              // sweep: waits begun after unproductive windows
  uint64_t backoff_launches = 0;      // sweep: wanted launches passed while waiting
  uint64_t longest_backoff = 0;       // sweep: the longest wait, in launches
  uint64_t nccl_launches = 0;         // NCCL kernels seen (never measured: IsNcclKernel)
  uint64_t captured_launches = 0;     // launches during stream capture left unmeasured
  uint64_t setup_ns = 0;              // profiler initialization, metric configuration, enable
  uint64_t measure_ns = 0;            // inside measured launches (kernel replay: and decoding)
  // Where a set's host work goes (each also inside measure_ns for kernel replay):
  // cuptiRangeProfilerDecodeData, evaluating ranges, (re)initializing the counter image.
  uint64_t decode_ns = 0, evaluate_ns = 0, reinit_ns = 0;
  uint64_t reinits = 0;    // counter data (re)initializations
  uint64_t reenables = 0;  // Range Profiler objects made again for a larger image
};

// One context's windows: the set in progress, one window per pass so far, and
// (rotate) the launches seen on the context.
struct ContextPlan {
  bool window_open = false;
  size_t window_cap = 1;
  bool last_wanted = false;  // the last launch seen on this context
  size_t next_pass = 0;      // what the last Range Profiler Stop said comes next
  size_t next_level = 1;
  std::vector<std::vector<Launch>> windows;
  // Rotate (rotate_driver.h).
  LaunchHistory history{1};
  bool in_set = false;
  size_t period = 0;          // of the set in progress
  size_t multiple = 1;        // windows of the next set: multiple x period launches
  bool off_period = false;    // the last launch in a window was not the one the period predicted
  uint64_t detect_after = 0;  // no new period search before this many launches
  // Sets in a row that gave no complete range (their period was a guess): from the
  // third, on a context where fewer than one set in four gave one, the next set waits
  // (none begins before `start_after` launches), the wait doubling up to a limit; the
  // first set that completes a range ends it.
  size_t unproductive = 0;
  uint64_t sets_judged = 0, sets_productive = 0;
  uint64_t start_after = 0;
  size_t backoff = 0;
  // Period length (> 1) -> the longest run of it, in launches, that ended before a set
  // on it could complete its passes (a loop over a model's layers: 6 layers hold 6
  // windows, fewer than 7 or 9 passes). While a set begun now would outlast such a
  // run, a set on that period waits (RotateDriver::RunTooShort), until the current run
  // outgrows the short one; a set on it that gives a sample forgets it. Keyed by
  // length only: another loop of the same length waits as long. At most one entry per
  // length up to the window limit.
  absl::flat_hash_map<size_t, size_t> short_runs;
  // With a sample budget, the same for runs of one signature (period 1), keyed by the
  // signature (Planner::Intern): PyTorch's AdamW fills its state with runs of 7-10
  // launches of one kernel in the first step, each long enough to begin a set of 7 or
  // 9 one-launch passes and too short to finish it (most of a second of step 0 lost
  // without this: docs/validation.md, "Facts the code relies on"). At most
  // RotateDriver::kMaxShortSingleRuns kernels.
  absl::flat_hash_map<uint32_t, size_t> short_single_runs;
  uint32_t run_id = 0;           // the signature of a set on period 1
  uint64_t run_began = 0;        // launches seen when the run of the set's period began
  bool run_began_known = false;  // that run began inside the history
  // Rotate's time budget (set_budget.h): when the set began (before its image was
  // prepared), and a set that ended in the driver's current call, charged as it returns.
  uint64_t set_began_ns = 0;
  bool set_ended = false;
  // A set's passes start `stride` launches apart (multiple x period); with a budget a
  // window holds fewer launches than that (RotateDriver::kBudgetWindow), and the
  // launches between a window's end and the next pass are a gap: not measured, kernel
  // records not held off, counted down in `gap_left`.
  size_t stride = 0;
  bool in_gap = false;
  bool held = false;  // kernel records held off for this context (RangeCalls::SetInProgress)
  size_t gap_left = 0;
  // With a budget, where windows begin: at a launch whose signature has the fewest
  // samples of the period's wanted signatures (`fewest`, found again when the samples
  // or the period change). Signatures seen unwanted are left out.
  uint64_t fewest = 0;
  uint64_t fewest_at_samples = UINT64_MAX;
  size_t fewest_period = 0;
  absl::flat_hash_set<uint32_t> unwanted_ids;
  // Sweep (sweep_driver.h; `window_open`, `window_cap`, `windows`, `unproductive`,
  // `backoff` and `start_after` as above, counted in `seen`): the kernel launches seen
  // on the context, the open window's launches in a row that add no sample, and its
  // wanted launches per signature (Planner::Intern).
  uint64_t seen = 0;
  size_t idle_in_row = 0;
  absl::flat_hash_map<uint32_t, uint32_t> pending;
};

// Range i of a decoded set: its signature and the launches that measured it.
struct RangeMatch {
  bool complete = false;  // every pass saw the same signature (and, rotate, all passes ran)
  bool wanted = true;     // every pass's launch was wanted (rotate: else not kept)
  bool extra = true;      // every pass's launch was wanted or extra (Launch::extra)
  Signature sig;
  std::vector<uint32_t> correlation_ids;  // non-zero ones, pass order
};

class Planner {
 public:
  // `rotate`: user replay (rotate; region counters); else kernel replay.
  Planner(const CounterOptions& options, bool rotate, bool region_mode);

  // User replay: rotate, the sweep, region counters (a set's ranges share the image).
  bool rotate() const { return rotate_; }
  bool sweep() const { return mode_ == LaunchMode::kSweep; }
  bool region_mode() const { return region_mode_; }
  LaunchMode mode() const { return mode_; }
  // Launches are measured in `mode` (not with region counters): user replay for rotate
  // and the sweep, the time budget for rotate only.
  void SetMode(LaunchMode mode);
  // How this planner's sets are measured: "kernel replay", "rotate", "sweep", "region
  // (user range)" (the counters.strategy note).
  const char* StrategyName() const;
  // From the metric configuration (known at the first measured context); a pending
  // mode is decided then (ChooseLaunchMode).
  void set_passes(size_t passes);
  size_t passes() const { return passes_; }
  CounterStats& stats() { return stats_; }
  const CounterStats& stats() const { return stats_; }

  // A kernel's demangled name and whether it matches the kernel filter (never for an
  // NCCL kernel: IsNcclKernel), cached by CUPTI's symbol pointer; `*nccl` (when given):
  // whether it is an NCCL kernel.
  const std::pair<std::string, bool>& KernelName(const char* symbol, bool* nccl = nullptr);

  // Launch callbacks (API_ENTER): whether this launch is to be measured. Counts the
  // matching launches (for launch_skip); `regions` is asked only when counters are
  // limited to regions.
  bool WantSample(const Signature& sig, bool matches, const RegionStack& regions);
  // The sweep, for a launch WantSample did not want: whether it is a further sample
  // (Launch::extra): it matches the filters and regions, launch_count is not reached,
  // and only its signature's budget is spent.
  bool ExtraSample(const Signature& sig, bool matches, const RegionStack& regions);
  // A launch went into the current window (rotate) or was replayed (kernel replay).
  void CountMeasured() { ++stats_.launches_measured; }

  // Decoding: matches range i of every window. `ranges`: ranges the image decoded;
  // launches past them count as dropped. A range that a pass lacks counts as
  // dropped for `missing`. Complete ranges are not yet counted.
  std::vector<RangeMatch> Match(const std::vector<std::vector<Launch>>& windows, size_t ranges,
                                DropReason missing = DropReason::kInterrupted);
  // A range's values were evaluated and are finite: one more sample.
  void SetComplete(const Signature& sig);
  void SetDropped(DropReason why, uint64_t n = 1);
  uint64_t Samples(const Signature& sig) const;
  bool BudgetSpent(const Signature& sig) const;
  // Nothing left to measure for launches of `sig` (`matches`: the kernel filter's
  // answer), whatever comes later: the filter leaves it out, its budget is spent, or
  // launch_count is reached. Never with every launch measured (per_signature = 0 and
  // no launch_count) nor with counters limited to regions (a launch outside one now may
  // be inside one later).
  bool Settled(const Signature& sig, bool matches) const;
  // Whether launches can settle at all in this configuration (Settled's conditions).
  bool CanSettle() const;
  SettledSignatures SettledSnapshot() const;
  // Rotate's time budget (rotate_budget_pct; disabled otherwise and for kernel replay).
  SetBudget& budget() { return budget_; }
  const SetBudget& budget() const { return budget_; }
  // Small integers for signatures (rotate's launch history); kGraphId for a graph launch.
  uint32_t Intern(const Signature& sig);
  static constexpr uint32_t kGraphId = 0xffffffffu;
  size_t signatures() const { return signatures_.size(); }
  const Signature& signature(uint32_t id) const { return signatures_[id]; }
  // Most launches (ranges) per rotate pass: the counter image's ranges.
  size_t window_limit() const { return static_cast<size_t>(options_.window); }
  const CounterOptions& options() const { return options_; }

  // What was measured so far: "N launches measured, M samples complete (S of T
  // signatures sampled), D dropped (mismatch a, ...)" and, in rotate, the ranges not
  // kept, the sets begun and the period. For the progress line and the run's notes.
  std::string Describe() const;
  // Kernel replay that cost seconds in a program that repeats its kernels: the advice
  // to measure them on later launches with rotate instead. "" when it does not apply.
  std::string ReplayAdvice() const;
  // The same advice the first time it applies, for the progress line (a training run
  // that replays for minutes hears it then, not at its end); "" otherwise.
  std::string ReplayAdviceOnce();

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

  CounterOptions options_;
  bool rotate_;
  bool region_mode_;
  LaunchMode mode_;
  size_t passes_ = 0;
  // The filters, compiled once; each remembers its answer per name, so the launch
  // path matches a kernel or region name once. Unset: no filter (all match).
  std::optional<model::CachedPattern> kernels_;
  std::optional<model::CachedPattern> regions_;
  CounterStats stats_;
  SetBudget budget_;
  uint64_t matching_seen_ = 0;
  struct CachedName {
    bool set = false;
    std::string symbol;                  // CUPTI's text when cached
    std::pair<std::string, bool> value;  // demangled, matches the kernel filter
    bool nccl = false;                   // IsNcclKernel
  };
  absl::flat_hash_map<const char*, CachedName> names_;
  absl::flat_hash_map<Signature, uint64_t> samples_;  // complete samples per signature
  absl::flat_hash_map<Signature, uint32_t> ids_;      // rotate: Intern
  std::vector<Signature> signatures_;
  bool replay_advice_given_ = false;
  std::string region_set_name_;  // the region whose set is in progress
  std::string region_set_path_;  // its first instance's path: the set's name
  absl::flat_hash_map<std::string, uint64_t> region_samples_;  // complete sets per name
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_PLANNER_H_
