// How a counting session measures: one object per strategy, made fresh at each
// CounterSampler::Start (counters.h), which calls it under its session lock:
//  - kernel replay (kernel_replay.h): CUPTI replays each measured launch once per pass;
//  - rotate (rotate_counters.h, user replay): successive windows of launches of one
//    kernel signature are the passes of one multi-pass configuration;
//  - the sweep (sweep_counters.h, user replay): a configuration of one pass, each window
//    of consecutive launches a complete set;
//  - AutoCounters (auto_counters.h) until the configuration's passes choose one of the
//    three above, which then takes its place;
//  - region counters (region_counters.h): a region instance is one user range, its
//    successive instances the passes of one set.
// The launch strategies share the launch callbacks' handling (launch_counters.h).
// Every strategy gets its contexts' Range Profilers from the session's CounterRun
// (counter_run.h), which asks the process's one owner of them (profiler_contexts.h).
//
// Not thread-safe: every call is made under CounterSampler's session lock.
#ifndef CUSCOPE_LIB_COLLECT_COUNTER_STRATEGY_H_
#define CUSCOPE_LIB_COLLECT_COUNTER_STRATEGY_H_

#include <cupti.h>

#include <memory>
#include <string>
#include <vector>

#include "lib/collect/profiler_contexts.h"

namespace cuscope::collect {

class CounterStrategy {
 public:
  // What a tick decided about the launch callbacks.
  enum class Switch { kNone, kOff, kOn };

  virtual ~CounterStrategy() = default;

  // A launch or graph launch callback (launch strategies; CUPTI_CB_DOMAIN_RUNTIME_API
  // or DRIVER_API).
  virtual void OnLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                        const CUpti_CallbackData* cb) {}
  // Region counters, in three steps around the GPU kinds' switch the sampler makes
  // outside its lock: a region was pushed, is this thread to measure the instance
  // (true: reserved; `*hold`: hold kernel records off during it)...
  virtual bool ReserveRegion(const std::vector<std::string>& stack, bool* hold) { return false; }
  // ...begin the reserved instance (`active`: the session is still on; false: not
  // begun, the reservation is dropped)...
  virtual bool StartRegion(const std::vector<std::string>& stack, bool hold, bool active) {
    return false;
  }
  // ...and a region is about to be popped: true if it ended the measured instance
  // (`*release`: give the GPU kinds back, outside the lock).
  virtual bool PopRegion(const std::vector<std::string>& stack, bool* release) { return false; }
  // The session's tick: whether the launch callbacks go off or come back.
  virtual Switch Tick() { return Switch::kNone; }
  // The strategy that takes this one's place, once (AutoCounters: the configuration's
  // passes chose it); the sampler swaps it in after the call that made it.
  virtual std::unique_ptr<CounterStrategy> TakeSuccessor() { return nullptr; }

  // Stop, in order: Close (what is open ends: a region instance), EndContext for each
  // context whose profiler is still enabled (before it is disabled), Finish (notes).
  virtual void Close() {}
  virtual void EndContext(ProfiledContext& c) {}
  virtual void Finish() {}
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COUNTER_STRATEGY_H_
