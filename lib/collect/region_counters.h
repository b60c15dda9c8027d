// Region counters (CounterOptions::region_counters): a region (NVTX range or cuscope
// scope) matching CounterOptions::regions is one user range, pushed and popped on the
// region's thread with the context current there; its successive instances are the
// passes of one set (user replay), so a repeating region (a training step's forward)
// gets one roofline point for all its kernels together. One instance is measured at a
// time. With instruction counters and kernel tracing, kernel records are off inside a
// measured instance (the sampler switches the GPU kinds outside its lock).
//
// Not thread-safe: every call is made under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_REGION_COUNTERS_H_
#define CUSCOPE_LIB_COLLECT_REGION_COUNTERS_H_

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lib/collect/counter_run.h"
#include "lib/collect/counter_sets.h"
#include "lib/collect/counter_strategy.h"
#include "lib/collect/interfaces.h"

namespace cuscope::collect {

class RegionCounters final : public CounterStrategy {
 public:
  // `kinds`: the tracer's GPU kinds (the periodic flush held off inside an instance);
  // `hold_kernels`: kernel records off inside instances.
  RegionCounters(CounterRun& run, GpuKindControl* kinds, bool hold_kernels)
      : run_(run), kinds_(kinds), sets_(run), hold_kernels_(hold_kernels) {}

  bool ReserveRegion(const std::vector<std::string>& stack, bool* hold) override;
  bool StartRegion(const std::vector<std::string>& stack, bool hold, bool active) override;
  bool PopRegion(const std::vector<std::string>& stack, bool* release) override;
  // An instance still open: noted, not measured.
  void Close() override;

 private:
  // The region instance measured now.
  struct OpenRegion {
    ProfiledContext* context = nullptr;
    std::string name;  // the matching region's own name
    std::string path;
    size_t depth = 0;
    std::thread::id thread;
  };

  // Ends the measured region instance: one pass of its set (`keep`: counted). Returns
  // true if the caller must give the GPU-side activity kinds back.
  bool CloseRegion(bool keep);

  CounterRun& run_;
  GpuKindControl* const kinds_;
  CounterSets sets_;
  const bool hold_kernels_;
  absl::flat_hash_map<CUcontext, ContextPlan> plans_;  // each context's set
  std::optional<OpenRegion> region_;
  bool reserved_ = false;        // a thread is about to open region_
  bool paused_tracing_ = false;  // the open instance holds kernel records off
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_REGION_COUNTERS_H_
