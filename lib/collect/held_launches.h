// Kernel records made from launch callbacks, on one context. Rotate with instruction
// counters holds CUPTI's kernel records off while a set runs (they read 0 while
// kernels are traced: kernel_hold.h): a launch measured in a window would leave no
// record, and the profile fewer kernels than launches. Its record is made here from
// the launch's API_ENTER, without times (placed when the profile is written:
// lib/store/measured_times.h) and without what only CUPTI's record says (registers,
// static shared memory: 0), and kept only if its API_EXIT says the launch succeeded.
//
// Not thread-safe: used under CounterSampler's session lock (counters.h).
#ifndef CUSCOPE_LIB_COLLECT_HELD_LAUNCHES_H_
#define CUSCOPE_LIB_COLLECT_HELD_LAUNCHES_H_

#include <cupti.h>

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "lib/collect/counter_outbox.h"
#include "lib/collect/launch_params.h"
#include "lib/collect/planner.h"

namespace cuscope::collect {

class HeldLaunches {
 public:
  // At a launch's API_ENTER, on a context of `device_id`.
  void Record(uint32_t device_id, const CUpti_CallbackData* cb, const Signature& sig,
              const LaunchShape& shape);
  // At its API_EXIT: the record made for it, if any and if the launch succeeded.
  std::optional<MadeKernel> Take(const CUpti_CallbackData* cb);
  bool empty() const { return made_.empty(); }

 private:
  absl::flat_hash_map<uint32_t, MadeKernel> made_;  // by correlation id
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_HELD_LAUNCHES_H_
