// What the launch strategies (kernel replay, rotate, the sweep; AutoCounters until the
// passes choose one) share: the launch callbacks' handling up to the strategy's part
// (which launch is wanted is the planner's answer; the context is set up at the first
// wanted launch on it), and the switch of the launch callbacks (launch_switch.h), with
// its notes. No strategy measures an NCCL kernel (never wanted: EnteredLaunch::nccl) or
// a launch made during stream capture (Captured), and each ends its open windows
// before such a launch, before a graph launch and before a stream capture begins.
//
// Not thread-safe: every call is made under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_LAUNCH_COUNTERS_H_
#define CUSCOPE_LIB_COLLECT_LAUNCH_COUNTERS_H_

#include <cupti.h>

#include <cstdint>

#include "lib/collect/counter_run.h"
#include "lib/collect/counter_sets.h"
#include "lib/collect/counter_strategy.h"
#include "lib/collect/idle_signals.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/launch_params.h"
#include "lib/collect/launch_switch.h"
#include "lib/collect/planner.h"
#include "lib/collect/profiler_contexts.h"

namespace cuscope::collect {

// A kernel launch at its API_ENTER, as the launch strategies get it.
struct EnteredLaunch {
  const CUpti_CallbackData* cb;
  const LaunchShape& shape;
  const Signature& sig;
  bool want = false;     // Planner::WantSample (never for an NCCL kernel)
  bool matches = false;  // the kernel filter matches it (Planner::KernelName)
  bool settled = false;  // Planner::Settled, for the idle switch
  bool nccl = false;     // an NCCL kernel (IsNcclKernel): never measured
};

class LaunchCounters : public CounterStrategy, protected LaunchSwitch::Plans {
 public:
  // `regions`: the thread's region stack (counters limited to regions); `kinds`: the
  // tracer's GPU kinds; `signals`: the idle switch's lock-free side.
  LaunchCounters(CounterRun& run, const RegionStack* regions, GpuKindControl* kinds,
                 IdleSignals& signals);

  void OnLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                const CUpti_CallbackData* cb) final;
  Switch Tick() final { return switch_.Decide(*this); }
  // counters.no_context_callbacks and the switch's notes.
  void Finish() final;

 protected:
  // A launch's API_ENTER on `c`, set up for this session (a context not set up yet
  // is set up at its first wanted launch).
  virtual void Enter(ProfiledContext& c, const EnteredLaunch& launch) = 0;
  // A launch's API_EXIT.
  virtual void Exit(const CUpti_CallbackData* cb) = 0;
  // A graph launch's API_ENTER (its kernels are not seen one by one).
  virtual void Graph(const CUpti_CallbackData* cb) {}
  // The API_ENTER of a call that begins a stream capture (on any context): open
  // windows end now.
  virtual void CaptureBegins() {}

  // Whether the launch is made during stream capture (it is recorded into a graph and
  // does not execute: nothing may measure it): asked only of a launch that would be
  // measured or would open a window. Counts it (CounterStats::captured_launches).
  bool Captured(const EnteredLaunch& launch);
  // The sweep: whether a launch it did not want is a further sample if an open window
  // measures it (Planner::ExtraSample); asked only then.
  bool ExtraSample(const EnteredLaunch& launch);
  // `to` takes over from `from` (the configuration's passes chose it: AutoCounters) at
  // `launch`, the first wanted one.
  static void HandOver(const LaunchCounters& from, LaunchCounters& to, ProfiledContext& c,
                       const EnteredLaunch& launch);

  CounterRun& run_;
  GpuKindControl* const kinds_;
  LaunchSwitch switch_;
  CounterSets sets_;

 private:
  void OnEnter(const CUpti_CallbackData* cb, const LaunchShape& shape);
  // A launch whose call overlapped a set: MeasuredTable::MarkCall.
  void MarkOverlapped(const CUpti_CallbackData* cb);

  const RegionStack* const regions_;
  // Launch callbacks that carried no context (left to the nested driver callback).
  uint64_t null_context_launches_ = 0;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_LAUNCH_COUNTERS_H_
