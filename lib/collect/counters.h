// Per-kernel hardware counters with the CUPTI Range Profiler (auto range, one range
// per kernel launch), attributed to launches from the launch callbacks.
//
// Two strategies (lib/collect/planner.h says how launches become sets):
//  - rotate (user replay): one multi-pass configuration; successive windows of
//    launches of one kernel signature are the passes. No replay, no memory
//    save/restore.
//  - kernel replay: CUPTI replays each measured launch once per pass.
// And region counters (CounterOptions::region_counters, region_counters.cc): a
// region (NVTX range or cuscope scope) matching CounterOptions::regions is one user
// range; its successive instances are the passes of one set (user replay), so a
// repeating region (a training step's forward) gets one roofline point for all its
// kernels together.
//
// Problems (not permitted, busy, unsupported) are reported through notes, not
// failures: the trace goes on without counters.
#ifndef CUSCOPE_LIB_COLLECT_COUNTERS_H_
#define CUSCOPE_LIB_COLLECT_COUNTERS_H_

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "lib/collect/callbacks.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/held_phases.h"
#include "lib/collect/idle_policy.h"
#include "lib/collect/image_ranges.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/launch_params.h"
#include "lib/collect/metric_host.h"
#include "lib/collect/metric_resolve.h"
#include "lib/collect/options.h"
#include "lib/collect/planner.h"
#include "lib/collect/range_profiler.h"
#include "lib/collect/rotate_driver.h"
#include "lib/model/profile.h"

namespace cuscope::collect {

class CounterSampler final : public MeasuredLaunches, public DrainSource, public RegionObserver {
 public:
  // `kinds`: the tracer's GPU kinds (held off inside measured regions); `regions`:
  // the thread's region stack (counters limited to regions); `callbacks`: the
  // launch callbacks.
  CounterSampler(GpuKindControl* kinds, const RegionStack* regions, CallbackSubscription* callbacks)
      : kinds_(kinds), regions_(regions), callbacks_(callbacks) {}

  // Subscribes to launch callbacks (or, for region counters, waits for regions).
  absl::Status Start(const CollectOptions& options) ABSL_LOCKS_EXCLUDED(switch_mu_, mu_);
  // Closes open windows, decodes what is complete, unsubscribes.
  void Stop() ABSL_LOCKS_EXCLUDED(switch_mu_, mu_);
  // Launch callbacks (from the collector's CUPTI callback).
  void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  // Region counters (region_counters.cc).
  void OnRegionPush(const std::vector<std::string>& stack) override;
  void OnRegionPop(const std::vector<std::string>& stack) override;
  Kind Classify(uint32_t correlation_id, const std::string& kernel_name) const override;
  // Idle launch callbacks (idle_callbacks.cc). With a bounded number of samples, once
  // CounterOptions::idle_launches launches in a row left nothing to measure and no set
  // is in progress, the launch callbacks go off (a PyTorch training step's launch call
  // costs what it costs under the trace alone); a kernel record of a signature still to
  // sample brings them back. KernelRecord: CUPTI's buffer thread, a leaf lock only.
  // Tick: the session's background thread, after each periodic flush; makes the switch.
  void KernelRecord(const std::string& kernel_name, const model::Dim3& grid,
                    const model::Dim3& block) override;
  void Tick() ABSL_LOCKS_EXCLUDED(switch_mu_, mu_);
  // Moves finished counter sets and device metrics (peaks, clocks) into `batch`.
  void Drain(model::Profile* batch) override;
  // What the run info should say about counters: "counters.status" (why counters are
  // missing, when they are), chip, passes, strategy, launches measured, samples.
  std::map<std::string, std::string> Notes();

 private:
  // A kernel record made from a launch callback (CUPTI's was held off).
  struct PendingKernel {
    uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
    std::string name, mangled_name;
    model::Dim3 grid, block;
    uint32_t dynamic_shared_bytes = 0;
  };
  // One CUDA context's Range Profiler and the windows measured on it.
  struct Context {
    uint32_t device_id = 0;
    CUcontext ctx = nullptr;
    RangeProfiler profiler;
    size_t max_ranges = 1;
    ImageRanges image;        // the ranges its counter data holds
    bool configured = false;  // SetConfig for a first pass made, no set run since
    bool sizing_off = false;  // an image sized to its set dropped ranges
    bool failed = false;
    ContextPlan plan;
    std::optional<Launch> replaying;  // kernel replay: the launch being measured
    uint64_t replay_start_ns = 0;
    bool kernels_held = false;  // rotate: a set in progress holds kernel records off
    // Records made at launches' API_ENTER, kept until their API_EXIT says the launch
    // succeeded (held_launches.cc); by correlation id.
    absl::flat_hash_map<uint32_t, PendingKernel> made;
  };
  struct PendingSet {
    uint32_t device_id;
    Signature sig;
    model::CounterStrategy strategy;
    uint32_t passes;
    std::vector<uint32_t> correlation_ids;
    std::vector<double> values;
  };
  // Region counters: the region instance measured now.
  struct OpenRegion {
    Context* context = nullptr;
    std::string name;  // the matching region's own name
    std::string path;
    size_t depth = 0;
    std::thread::id thread;
  };

  class Phase;
  // Times the callback work of its scope; spans of kRecordedHeldNs or more go to
  // pending_held_, cut into the phases timed inside it (held_phases.h).
  class HeldTimer {
   public:
    explicit HeldTimer(CounterSampler* sampler);
    ~HeldTimer();
    HeldTimer(const HeldTimer&) = delete;
    HeldTimer& operator=(const HeldTimer&) = delete;

   private:
    friend class Phase;
    CounterSampler* sampler_;
    uint64_t start_;                           // MonotonicNs
    absl::InlinedVector<HeldSpan, 8> phases_;  // never grown past 8 (Phase)
    HeldTimer* outer_;                         // the thread's enclosing timer, if any
    static thread_local HeldTimer* current_;
  };
  // Times one phase of the sampler's work: adds it to `*sum` (if any) and, inside a
  // callback, names that part of its held span.
  class Phase {
   public:
    Phase(HeldPhase phase, uint64_t* sum, uint64_t t0 = MonotonicNs())
        : phase_(phase), sum_(sum), t0_(t0) {}
    ~Phase();
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;

   private:
    HeldPhase phase_;
    uint64_t* sum_;
    uint64_t t0_;
  };
  static constexpr uint64_t kRecordedHeldNs = 20000;
  // Plain sampler time between named phases shorter than this goes to a neighbour.
  static constexpr uint64_t kFoldedOtherNs = 2000;

  void StopLocked() ABSL_LOCKS_EXCLUDED(mu_);
  // A launch seen at API_ENTER, for the idle callbacks: `settled` (Planner::Settled),
  // `busy` (a set in progress on its context).
  void CountIdle(const Signature& sig, bool settled, bool busy) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ResetIdle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);  // a new session
  // Tick's two halves under mu_: true when the callbacks are to be switched.
  bool GoIdle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Wake() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rotate's time budget: the callbacks off while it allows no set (BudgetOff), back
  // on once it does (BudgetOn). No set in progress on any context (AnySetInProgress).
  bool BudgetOff() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool BudgetOn() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool AnySetInProgress() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SwitchLaunchCallbacks(bool on) ABSL_EXCLUSIVE_LOCKS_REQUIRED(switch_mu_);
  // counters.idle: how often and how long the callbacks were off (Stop).
  void NoteIdle() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Note(const std::string& key, const std::string& text) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Progress() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Kernel replay's advice for loops (Planner::ReplayAdviceOnce), on stderr the first
  // time it applies: asked at each launch not measured, as the loop that makes it apply
  // runs after the last replay.
  void AdviseOnce() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Prepares the Range Profiler on a context at its first measured launch.
  Context* GetContext(CUcontext ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Empties contexts_; returns how many kept a profiler no Disable could end.
  size_t ClearContexts() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Context* SetUpContext(CUcontext ctx) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool SetUpMetrics(uint32_t device_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<Resolution> ResolveForChip() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool ReinitCounterData(Context& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool SetConfig(Context& c, size_t pass, size_t level) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rotate, before a set of at most `ranges` ranges a pass: the counter data
  // re-initialized only if they might not fit after those it holds, then SetConfig for
  // the first pass. False: the context failed.
  bool PrepareSet(Context& c, size_t ranges) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  class ImageSetUp;  // PrepareSet's ImageCalls
  bool Reenable(Context& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Decodes the counter data of a finished set and turns matching ranges into sets
  // (kernel replay, region counters; rotate's sets are the rotate driver's).
  void DecodeSet(Context& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Decodes the counter data of a set whose passes measured `windows` (kernel replay
  // and region counters: one window, for every pass): the set's ranges decoded (from
  // c.image.first()), or nothing when decoding failed or the ranges are not where the
  // image's placement puts them (image_ranges.h; re-initialized before the next set).
  std::optional<size_t> DecodeRanges(Context& c, const std::vector<std::vector<Launch>>& windows)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rotate's part of DecodeRanges: where the set lies in the shared image, given the
  // ranges CUPTI `dropped` and the image's `total`; nothing when they cannot be read.
  std::optional<size_t> SharedImageRanges(Context& c,
                                          const std::vector<std::vector<Launch>>& windows,
                                          size_t dropped, size_t total)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Range `range`'s values; true (and the set queued for Drain) if they are finite.
  bool EvaluateSet(Context& c, size_t range, RangeMatch& match) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rotate's passes (launch_counters.cc): Range Profiler Start and Stop.
  class RotateCalls;
  bool StartPass(Context& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  RangeCalls::Stopped StopPass(Context& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Rotate: a set begins or ends on `c` (RangeCalls::SetInProgress).
  void SetInProgress(Context& c, bool in_set) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Releases the GPU records held for rotate's sets once none runs (outside mu_).
  void ReleaseKernelHold() ABSL_LOCKS_EXCLUDED(mu_, hold_mu_);
  // A launch or graph launch callback, under mu_.
  void OnLaunchCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                        const CUpti_CallbackData* cb) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The end of collection on a rotate context: a set whose passes did not all run is dropped.
  void EndRotate(Context& c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // At Start: the run notes on rotate's settings (records held off, the time budget).
  void NoteRotateSettings(const CounterOptions& options, bool region_mode)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnLaunchEnter(const CUpti_CallbackData* cb, const LaunchShape& shape)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A launch that went into a window of a set holding kernel records off: its record,
  // made from the launch (held_launches.cc), kept in `c` until its API_EXIT...
  void RecordHeldLaunch(Context& c, const CUpti_CallbackData* cb, const Signature& sig,
                        const LaunchShape& shape) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // ...where it goes to Drain if the launch succeeded.
  void QueueHeldLaunch(Context& c, const CUpti_CallbackData* cb) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DrainHeldLaunches(model::Profile* batch) ABSL_EXCLUSIVE_LOCKS_REQUIRED(out_mu_);
  void OnLaunchExit(const CUpti_CallbackData* cb) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `name`: the launch's kernel, demangled (Classify tells CUPTI's own kernels apart).
  void MarkMeasured(uint32_t correlation_id, const std::string& name);
  // Region counters (region_counters.cc).
  bool StartRegion(const std::vector<std::string>& stack, bool hold) ABSL_LOCKS_EXCLUDED(mu_);
  bool CloseRegion(bool keep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  GpuKindControl* const kinds_;
  const RegionStack* const regions_;
  CallbackSubscription* const callbacks_;

  // Fast exits for callbacks while counters are off (and for NVTX pushes and pops
  // outside region counters); mu_ decides.
  std::atomic<bool> active_flag_{false};
  std::atomic<bool> region_mode_flag_{false};

  // Held across a switch of the launch callbacks (Tick) and by Start and Stop, so a
  // switch decided for one session never lands in the next. Taken before mu_: the
  // CUPTI call that switches is made outside mu_ (a launch callback in flight waits
  // on mu_, and CUPTI may wait on it).
  absl::Mutex switch_mu_ ABSL_ACQUIRED_BEFORE(mu_);

  // The sampler's state. Held across Range Profiler calls made from the
  // application's launch and region callbacks: a context's profiler state (a window
  // started or not) and the windows that describe it must change together, and
  // launches on other threads must not fall between them. CUPTI's buffer thread
  // never takes it (Drain and Classify take only the two leaf locks below), so
  // what waits on it is other launches and the session's Start/Stop.
  absl::Mutex mu_ ABSL_ACQUIRED_BEFORE(out_mu_, measured_mu_);
  bool active_ ABSL_GUARDED_BY(mu_) = false;
  CollectOptions options_ ABSL_GUARDED_BY(mu_);
  std::optional<Planner> planner_ ABSL_GUARDED_BY(mu_);
  bool region_hold_kernels_ ABSL_GUARDED_BY(mu_) = false;  // kernel records off inside instances
  // Rotate with instruction counters: GPU records off while any context's set runs. The
  // hold is taken under mu_ (before a set's first pass) and released after the
  // callback lets go of mu_ (ReleaseKernelHold), so a set that ends and the next that
  // begins in one callback switch nothing. Lock order: mu_, hold_mu_, the tracer's.
  bool rotate_hold_kernels_ ABSL_GUARDED_BY(mu_) = false;
  absl::Mutex hold_mu_ ABSL_ACQUIRED_AFTER(mu_);
  int sets_holding_kernels_ ABSL_GUARDED_BY(hold_mu_) = 0;
  bool kernels_held_ ABSL_GUARDED_BY(hold_mu_) = false;
  std::atomic<bool> release_pending_{false};
  // Kernel replay: a measured launch ended; its buffer is flushed once the callback lets
  // go of mu_ (GpuKindControl::FlushAfterReplay).
  std::atomic<bool> flush_after_replay_{false};
  std::optional<OpenRegion> region_ ABSL_GUARDED_BY(mu_);
  bool region_reserved_ ABSL_GUARDED_BY(mu_) = false;  // a thread is about to open region_
  bool region_paused_tracing_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::string> metrics_ ABSL_GUARDED_BY(mu_);
  std::string chip_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<MetricHost> host_ ABSL_GUARDED_BY(mu_);
  MetricHost::Config image_ ABSL_GUARDED_BY(mu_);
  // Set when a requested name is collected through a substitute: folds the chip's
  // values into the requested names.
  std::optional<Resolution> resolution_ ABSL_GUARDED_BY(mu_);
  bool profiler_initialized_ ABSL_GUARDED_BY(mu_) = false;  // once per process
  absl::flat_hash_map<CUcontext, std::unique_ptr<Context>> contexts_ ABSL_GUARDED_BY(mu_);
  // Contexts whose profiler no Disable could end (kept: CUPTI may still use their image).
  std::vector<std::unique_ptr<Context>> still_enabled_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<uint32_t> device_metrics_done_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> notes_ ABSL_GUARDED_BY(mu_);
  uint64_t start_ns_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t last_progress_ns_ ABSL_GUARDED_BY(mu_) = 0;
  int windows_logged_ ABSL_GUARDED_BY(mu_) = 0;
  // Launch callbacks that carried no context (left to the nested driver callback).
  uint64_t null_context_launches_ ABSL_GUARDED_BY(mu_) = 0;
  // CUSCOPE_INTERNAL_SETCONFIG=1: SetConfig(passIndex) before each window.
  bool setconfig_each_pass_ ABSL_GUARDED_BY(mu_) = false;
  // Rotate's counter image sized to each set when it is re-initialized
  // (ImageRanges::Before), not to the window limit once; CUSCOPE_INTERNAL_IMAGE_SIZING=0
  // turns it off (the window limit's image, as before session 11).
  bool size_images_ ABSL_GUARDED_BY(mu_) = true;
  size_t largest_image_ranges_ ABSL_GUARDED_BY(mu_) = 0;  // for counters.image

  // Finished sets waiting for Drain (CUPTI's buffer thread). A leaf lock.
  absl::Mutex out_mu_;
  std::vector<std::string> out_metrics_ ABSL_GUARDED_BY(out_mu_);  // names of the values
  std::vector<PendingSet> pending_ ABSL_GUARDED_BY(out_mu_);
  std::vector<PendingKernel> pending_kernels_ ABSL_GUARDED_BY(out_mu_);
  // Records made from launches and not queued: the queue was full (no drain came).
  uint64_t made_dropped_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<std::pair<uint32_t, std::vector<double>>> pending_device_values_
      ABSL_GUARDED_BY(out_mu_);
  // Spans (CUPTI's clock) in which the sampler held the program's thread in a launch
  // or region callback: its setup on a context, a kernel replay's start, a rotate
  // window's start and stop. CUPTI starts timing an API call after the ENTER callbacks
  // and stops before the EXIT ones, so this time is in no API record: it is written
  // as overhead records (model::kCountersOverhead).
  std::vector<HeldSpan> pending_held_ ABSL_GUARDED_BY(out_mu_);  // CUPTI timestamps

  // Idle launch callbacks (idle_callbacks.cc; the decisions are idle_policy.h's).
  IdlePolicy idle_ ABSL_GUARDED_BY(mu_);
  uint64_t idle_since_ns_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t idle_ns_ ABSL_GUARDED_BY(mu_) = 0;  // off in all, to the last time back on
  uint64_t idle_offs_ ABSL_GUARDED_BY(mu_) = 0, idle_ons_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t launches_before_idle_ ABSL_GUARDED_BY(mu_) = 0;    // seen when first off
  std::vector<std::string> woke_names_ ABSL_GUARDED_BY(mu_);  // for the note, the first few
  std::atomic<bool> idle_due_{false};   // the run of settled launches reached the threshold
  std::atomic<bool> idle_flag_{false};  // idle_, for KernelRecord's fast exit
  std::atomic<bool> wake_due_{false};   // a record of a signature still to sample came
  // What KernelRecord compares against while the callbacks are off. A leaf lock.
  absl::Mutex idle_mu_;
  SettledSignatures settled_ ABSL_GUARDED_BY(idle_mu_);
  std::optional<Signature> woken_by_ ABSL_GUARDED_BY(idle_mu_);
  // Rotate's time budget spent (set_budget.h): the launch callbacks go off at a tick
  // when the budget allows no set for a while, and come back at the first tick once it
  // allows one (idle_callbacks.cc). Exclusive with idle_ being off. Not while any
  // context has a set open (a context that stopped launching mid-set keeps them on).
  bool budget_off_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t budget_off_since_ns_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t budget_off_ns_ ABSL_GUARDED_BY(mu_) = 0, budget_offs_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t budget_ons_ ABSL_GUARDED_BY(mu_) = 0;
  std::atomic<bool> budget_ticks_{false};  // a time budget: Tick looks at it

  // Correlation ids of measured launches (asked by the converter). A leaf lock.
  mutable absl::Mutex measured_mu_;
  // Correlation id -> a hash of the launch's kernel name (0: none).
  absl::flat_hash_map<uint32_t, uint64_t> measured_ ABSL_GUARDED_BY(measured_mu_);
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTERS_H_
