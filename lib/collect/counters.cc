#include "lib/collect/counters.h"

#include "absl/strings/str_format.h"
#include "lib/collect/auto_counters.h"
#include "lib/collect/elapsed.h"
#include "lib/collect/held_timer.h"
#include "lib/collect/kernel_replay.h"
#include "lib/collect/launch_params.h"
#include "lib/collect/planner.h"
#include "lib/collect/range_profiler.h"
#include "lib/collect/region_counters.h"
#include "lib/collect/rotate_counters.h"
#include "lib/collect/sweep_counters.h"

namespace cuscope::collect {

std::unique_ptr<CounterStrategy> CounterSampler::MakeStrategy(const CollectOptions& options,
                                                              bool region_mode) {
  const CounterOptions& counters = options.counters;
  const bool hold_kernels = options.trace.kernel && NeedsInstrumentedCounters(counters);
  if (region_mode) return std::make_unique<RegionCounters>(*run_, kinds_, hold_kernels);
  const LaunchMode mode = ChooseLaunchMode(counters, /*passes=*/0);
  if (mode == LaunchMode::kPending || mode == LaunchMode::kRefused) {
    // Decided by the passes (never with instruction counters: nothing to hold).
    return std::make_unique<AutoCounters>(
        *run_, regions_, kinds_, signals_,
        [this](LaunchMode decided) ABSL_NO_THREAD_SAFETY_ANALYSIS {
          return MakeLaunchStrategy(decided, /*hold=*/nullptr);
        });
  }
  return MakeLaunchStrategy(mode, hold_kernels ? &hold_ : nullptr);
}

std::unique_ptr<LaunchCounters> CounterSampler::MakeLaunchStrategy(LaunchMode mode,
                                                                   KernelHold* hold) {
  switch (mode) {
    case LaunchMode::kRotate:
      return std::make_unique<RotateCounters>(*run_, regions_, kinds_, signals_, hold);
    case LaunchMode::kKernelReplay:
      return std::make_unique<KernelReplay>(*run_, regions_, kinds_, signals_,
                                            &flush_after_replay_);
    case LaunchMode::kSweep:
      return std::make_unique<SweepCounters>(*run_, regions_, kinds_, signals_);
    case LaunchMode::kPending:
    case LaunchMode::kRefused:
      break;
  }
  return nullptr;
}

absl::Status CounterSampler::Start(const CollectOptions& options) {
  absl::MutexLock switch_lock(&switch_mu_);
  absl::MutexLock lock(&mu_);
  if (active_) return absl::AlreadyExistsError("counters already started");
  const CounterOptions& counters = options.counters;
  const bool region_mode = counters.region_counters && !counters.regions.empty();
  // Instruction counters read 0 under user replay while kernels are traced: rotate
  // holds kernel records off while a set runs, as region counters do inside an instance.
  const bool rotate_holds_kernels = options.trace.kernel && NeedsInstrumentedCounters(counters) &&
                                    !region_mode &&
                                    ChooseLaunchMode(counters, 0) == LaunchMode::kRotate;
  hold_.Reset();      // the tracer's Start released its hold
  measured_.Clear();  // this session's launches only
  const uint64_t start_ns = MonotonicNs();
  // A new session starts clean: contexts were disabled at the last Stop, and the
  // metric list may differ.
  const size_t kept = contexts_.Clear();
  strategy_.reset();
  run_ =
      std::make_unique<CounterRun>(options, region_mode, start_ns, contexts_, outbox_, measured_);
  if (kept > 0) {
    run_->notes().Note(
        &model::RunNotes::counters_disable,
        absl::StrFormat("the Range Profiler of %d context(s) could not be disabled after the last "
                        "session: counters there may fail to start",
                        kept));
  }
  run_->NoteSettings(rotate_holds_kernels);
  outbox_.SetMetricNames({});
  signals_.Reset(run_->planner().budget().enabled());
  strategy_ = MakeStrategy(options, region_mode);
  ++session_;
  if (region_mode) {
    // Regions arrive from region tracking (OnRegionPush/Pop); no launch callbacks.
    active_ = true;
    active_flag_.store(true);
    region_mode_flag_.store(true);
    return absl::OkStatus();
  }
  absl::Status subscribed = callbacks_->Add(CallbackSubscription::kCounters);
  if (!subscribed.ok()) return subscribed;
  for (const auto& [domain, cbid] : LaunchCallbacks()) {
    callbacks_->Enable(domain, cbid).IgnoreError();
  }
  active_ = true;
  active_flag_.store(true);
  return absl::OkStatus();
}

void CounterSampler::Stop() {
  absl::MutexLock switch_lock(&switch_mu_);
  StopLocked();
  hold_.Release();  // every set ended in StopLocked
  // Outside the lock: unsubscribing may wait for callbacks that want it.
  callbacks_->Remove(CallbackSubscription::kCounters);
}

void CounterSampler::StopLocked() {
  absl::MutexLock lock(&mu_);
  if (!active_) return;
  active_flag_.store(false);
  region_mode_flag_.store(false);
  active_ = false;
  strategy_->Close();
  CounterNotes& notes = run_->notes();
  contexts_.DisableAll([this](ProfiledContext& c) { strategy_->EndContext(c); },
                       [&notes](CUptiResult r) {
                         notes.Note(&model::RunNotes::counters_disable,
                                    ExplainCupti("cuptiRangeProfilerDisable", r));
                       });
  strategy_->Finish();
  run_->NoteEnd();
}

void CounterSampler::OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  if (!active_flag_.load(std::memory_order_relaxed)) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  {
    absl::MutexLock lock(&mu_);
    if (!active_) return;
    HeldTimer held(&outbox_);
    strategy_->OnLaunch(domain, cbid, cb);
    if (std::unique_ptr<CounterStrategy> next = strategy_->TakeSuccessor()) {
      strategy_ = std::move(next);
    }
  }
  hold_.Release();
  if (flush_after_replay_.exchange(false)) kinds_->FlushAfterReplay();
}

void CounterSampler::OnRegionPush(const std::vector<std::string>& stack) {
  if (!region_mode_flag_.load(std::memory_order_relaxed) || stack.empty()) return;
  bool hold = false;
  uint64_t session = 0;
  {
    absl::MutexLock lock(&mu_);
    if (!active_ || !strategy_->ReserveRegion(stack, &hold)) return;
    session = session_;
  }
  // As in rotate: instruction counters read 0 under user replay while kernels are
  // traced, so the measured instance goes without kernel records. Held before the
  // range starts (the switch costs time that must not fall in the range), and outside
  // mu_ (enabling kinds may wait for CUPTI).
  HeldTimer held(&outbox_);  // switching kinds may wait for CUPTI; then the range starts
  kinds_->HoldPeriodicFlush(true);
  if (hold) kinds_->HoldGpuKinds(true);
  bool started = false;
  {
    // mu_ is held across the Range Profiler calls. A session started meanwhile made
    // new objects: the reservation went with the old ones.
    absl::MutexLock lock(&mu_);
    started = session == session_ && strategy_->StartRegion(stack, hold, active_);
  }
  if (hold && !started) kinds_->HoldGpuKinds(false);
  if (!started) kinds_->HoldPeriodicFlush(false);
}

void CounterSampler::OnRegionPop(const std::vector<std::string>& stack) {
  if (!region_mode_flag_.load(std::memory_order_relaxed)) return;
  HeldTimer held(&outbox_);  // the range's end, its decode, giving the kinds back
  bool release = false;
  {
    absl::MutexLock lock(&mu_);
    if (!active_ || !strategy_->PopRegion(stack, &release)) return;
  }
  if (release) kinds_->HoldGpuKinds(false);
}

void CounterSampler::Tick() {
  // Records no longer reach cuscope (another CUPTI client took the buffers): nothing
  // could wake the callbacks, so they come back now.
  if (signals_.off() && kinds_->RecordsTaken()) signals_.WakeNow();
  if (!signals_.Due()) return;
  absl::MutexLock switch_lock(&switch_mu_);
  CounterStrategy::Switch to = CounterStrategy::Switch::kNone;
  {
    absl::MutexLock lock(&mu_);
    if (!active_) return;
    to = strategy_->Tick();
  }
  if (to != CounterStrategy::Switch::kNone)
    SwitchLaunchCallbacks(to == CounterStrategy::Switch::kOn);
}

void CounterSampler::SwitchLaunchCallbacks(bool on) {
  for (const auto& [domain, cbid] : LaunchCallbacks()) {
    absl::Status st = on ? callbacks_->Enable(domain, cbid) : callbacks_->Disable(domain, cbid);
    st.IgnoreError();  // unsubscribed meanwhile (another client took CUPTI): nothing to switch
  }
}

model::RunNotes CounterSampler::Notes() {
  absl::MutexLock lock(&mu_);
  if (run_ == nullptr) return {};
  return run_->notes().ForRunInfo();
}

}  // namespace cuscope::collect
