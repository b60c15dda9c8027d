// The small interfaces through which the parts of the collector (lib/collect/
// collector.h) reach each other. Each part is given the ones it needs at
// construction instead of calling another part's functions; no part includes
// another part's header.
#ifndef CUSCOPE_LIB_COLLECT_INTERFACES_H_
#define CUSCOPE_LIB_COLLECT_INTERFACES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "lib/model/profile.h"

namespace cuscope::collect {

// GPU-side activity kinds (kernels, copies, memsets, syncs, overhead) on and off.
// Implemented by the activity tracer; used by capture control and region counters.
class GpuKindControl {
 public:
  // Capture control: off outside capture windows, on inside.
  virtual void PauseGpuKinds() = 0;
  virtual void ResumeGpuKinds() = 0;
  // Kernel records are off now because counters hold them (HoldGpuKinds), CUPTI took
  // the switch, and capture would have recorded them: a launch now gets no record
  // unless one is made for it. Lock-free.
  virtual bool KernelRecordsHeldOff() const = 0;
  // Counters: keep them off (true) while a region is measured with instruction
  // counters, whatever capture control says; false gives them back to it.
  virtual void HoldGpuKinds(bool hold) = 0;
  // Region counters: hold the periodic flush off while a region instance is
  // measured (true waits up to 20 ms for a flush in progress to end).
  virtual void HoldPeriodicFlush(bool hold) = 0;
  // Kernel replay: a measured launch just returned, its passes done, so the launching
  // context's records are complete but that launch's own, whose times CUPTI zeroes. An
  // unforced flush never hands over a buffer holding such a record (nothing after the
  // first replay would reach the profile before the run ends: docs/validation.md,
  // "Facts the code relies on"), so the buffer goes now, with a forced flush (a kernel
  // another thread or context has in flight goes without its times). From the
  // launching thread, no lock held.
  virtual void FlushAfterReplay() = 0;
  // Another CUPTI client took the activity buffers: kernel records no longer reach
  // cuscope (the idle launch callbacks then stay on). Lock-free.
  virtual bool RecordsTaken() const = 0;

 protected:
  ~GpuKindControl() = default;
};

// The names of the regions (NVTX ranges, cuscope scopes) open on the calling
// thread, outermost first. Implemented by region tracking (lib/collect/capture).
class RegionStack {
 public:
  virtual const std::vector<std::string>& ThreadRegions() const = 0;

 protected:
  ~RegionStack() = default;
};

// Told of region boundaries on the calling thread: the stack just after a push and
// just before a pop. Implemented by the counter sampler (region counters).
class RegionObserver {
 public:
  virtual void OnRegionPush(const std::vector<std::string>& stack) = 0;
  virtual void OnRegionPop(const std::vector<std::string>& stack) = 0;

 protected:
  ~RegionObserver() = default;
};

// The launches whose counters were measured (serialized, slowed). Implemented by
// the counter sampler; asked by the record converter.
class MeasuredLaunches {
 public:
  // What a kernel record of `correlation_id` named `kernel_name` (demangled) is to the
  // counters: no measured launch; the measured launch itself; or a kernel CUPTI ran
  // for the Range Profiler under that launch's correlation id (in user replay, a
  // one-block `WaitNs` kernel on a stream of its own, about 80 us, one per range:
  // docs/validation.md, "Facts the code relies on").
  enum class Kind { kNotMeasured, kMeasured, kProfilerKernel };
  virtual Kind Classify(uint32_t correlation_id, const std::string& kernel_name) const = 0;
  // A kernel record of the program's, launched outside graphs (CUPTI's buffer thread):
  // while the launch callbacks are off, one of a signature still to sample brings them
  // back. Cheap otherwise.
  virtual void KernelRecord(const std::string& kernel_name, const model::Dim3& grid,
                            const model::Dim3& block) = 0;

 protected:
  ~MeasuredLaunches() = default;
};

// Something that adds finished records (counter sets, scopes) to the tracer's batch
// before it goes to the sink. Called on CUPTI's buffer thread under the tracer's
// batch lock.
class DrainSource {
 public:
  virtual void Drain(model::Profile* batch) = 0;

 protected:
  ~DrainSource() = default;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_INTERFACES_H_
