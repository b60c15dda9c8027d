// The collector of a session: an activity tracer, a counter sampler, a region
// tracker (capture control), a GPU sampler (GPU metrics) and a PC sampler (source
// hotspots), wired to each other
// through the small interfaces of lib/collect/interfaces.h, and the process's one
// CUPTI callback subscription, whose callback's userdata is this object.
//
//   tracer   <- GpuKindControl   -- region tracker (capture windows)
//            <- GpuKindControl   -- counter sampler (region counters)
//   tracer   -> DrainSource      -> counter sampler, scopes, GPU sampler, PC sampler
//   tracer   -> MeasuredLaunches -> counter sampler (kernel records)
//   sampler  -> RegionStack      -> region tracker (counters limited to regions)
//   tracker  -> RegionObserver   -> counter sampler (region counters)
//
// Owned by the session, which starts and stops the parts in order. Never destroyed
// while CUPTI may call back (the session keeps it until the process ends).
#ifndef CUSCOPE_LIB_COLLECT_COLLECTOR_H_
#define CUSCOPE_LIB_COLLECT_COLLECTOR_H_

#include <cupti.h>

#include "lib/collect/activity.h"
#include "lib/collect/callbacks.h"
#include "lib/collect/capture.h"
#include "lib/collect/counters.h"
#include "lib/collect/gpu_sampler.h"
#include "lib/collect/interfaces.h"
#include "lib/collect/pc_sampler.h"

namespace cuscope::collect {

// User scopes (lib/collect/scopes.h) as a drain source.
class ScopesDrain final : public DrainSource {
 public:
  void Drain(model::Profile* batch) override;
};

class Collector {
 public:
  Collector();
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  ActivityTracer& tracer() { return tracer_; }
  CounterSampler& counters() { return counters_; }
  RegionTracker& regions() { return regions_; }
  GpuSampler& sampler() { return sampler_; }
  PcSampler& pc_sampler() { return pc_sampler_; }

 private:
  // CUPTI's API, NVTX and resource callbacks: to region tracking first, then to the
  // counter sampler, then to the GPU sampler, then to the PC sampler, each while it is
  // subscribed.
  static void CUPTIAPI OnCallback(void* userdata, CUpti_CallbackDomain domain,
                                  CUpti_CallbackId cbid, const void* data);

  CallbackSubscription callbacks_;
  ScopesDrain scopes_;
  GpuSampler sampler_;
  PcSampler pc_sampler_;
  ActivityTracer tracer_;
  CounterSampler counters_;
  RegionTracker regions_;
};

}  // namespace cuscope::collect

#endif  // CUSCOPE_LIB_COLLECT_COLLECTOR_H_
