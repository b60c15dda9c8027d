// Kernel replay: CUPTI replays each measured launch once per pass (auto range, one
// range per launch). A wanted launch's API_ENTER starts the Range Profiler on its
// context; its API_EXIT stops it, decodes and evaluates the set, and asks for the
// activity buffer to be flushed once the session lock is let go (CUPTI zeroes the
// times of a replayed kernel's record: GpuKindControl::FlushAfterReplay). A launch
// made during stream capture (it does not execute) and an NCCL kernel (it waits on
// other GPUs) are never replayed.
//
// Not thread-safe: every call is made under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_KERNEL_REPLAY_H_
#define CUSCOPE_LIB_COLLECT_KERNEL_REPLAY_H_

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "lib/collect/launch_counters.h"

namespace cuscope::collect {

class KernelReplay final : public LaunchCounters {
 public:
  // `flush_after_replay`: set when a measured launch ended; the sampler flushes once
  // it let go of its lock.
  KernelReplay(CounterRun& run, const RegionStack* regions, GpuKindControl* kinds,
               IdleSignals& signals, std::atomic<bool>* flush_after_replay)
      : LaunchCounters(run, regions, kinds, signals), flush_after_replay_(flush_after_replay) {}

 private:
  // One context's launch being measured.
  struct Replayed {
    ContextPlan plan;
    std::optional<Launch> replaying;  // the launch being measured
    uint64_t start_ns = 0;
  };

  void Enter(ProfiledContext& c, const EnteredLaunch& launch) override;
  void Exit(const CUpti_CallbackData* cb) override;
  // LaunchSwitch::Plans.
  bool AnySetInProgress() const override;
  void ForgetWanted() override;
  void Resumed() override;

  std::atomic<bool>* const flush_after_replay_;
  absl::flat_hash_map<CUcontext, Replayed> contexts_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_KERNEL_REPLAY_H_
