// The switch of the activity kinds a session enabled, and of its GPU-side kinds
// (kernels, copies, memsets, syncs, CUDA events, overhead) in particular: those are
// on while capture control has not paused them and counters do not hold them off.
// NVTX ranges and API calls are never switched here.
//
// Lock: one leaf mutex, held across cuptiActivityEnable/Disable (the switch and the
// flags must agree). Taken from application threads (capture windows, region
// counters) and by the records probe's Stop (DisableAll), after the probe's lock.
#ifndef CUSCOPE_LIB_COLLECT_GPU_KINDS_H_
#define CUSCOPE_LIB_COLLECT_GPU_KINDS_H_

#include <cupti.h>

#include <atomic>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace cuscope::collect {

class GpuKindSwitch {
 public:
  // Enables `kinds` in order, all GPU-side kinds on, nothing paused or held. On the
  // first refusal the kinds enabled so far are disabled again and the error names
  // the kind. `with_cuda_events`: CUDA event records too, where CUPTI allows them
  // (a refinement: a refusal is not an error).
  absl::Status Enable(const std::vector<CUpti_ActivityKind>& kinds, bool with_cuda_events);
  // Disables every kind Enable enabled; a Pause, Resume or Hold after it finds none
  // to switch.
  void DisableAll();

  // Capture control: paused (true) outside capture windows.
  void Pause(bool paused);
  // Counters: held off (true) while a region is measured with instruction counters,
  // whatever capture control says.
  void Hold(bool hold);
  // Kernel records are off because counters hold them (CUPTI took the switch) and
  // capture would have recorded them. Lock-free.
  bool KernelRecordsHeldOff() const { return kernels_held_off_.load(); }

 private:
  void Apply() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  bool capture_paused_ ABSL_GUARDED_BY(mu_) = false;
  bool counters_hold_ ABSL_GUARDED_BY(mu_) = false;
  bool gpu_kinds_on_ ABSL_GUARDED_BY(mu_) = true;
  bool kernels_disabled_ ABSL_GUARDED_BY(mu_) = false;  // CUPTI took the switch off
  std::atomic<bool> kernels_held_off_{false};
  std::vector<CUpti_ActivityKind> enabled_ ABSL_GUARDED_BY(mu_);
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_GPU_KINDS_H_
