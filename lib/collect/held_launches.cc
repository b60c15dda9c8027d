// Kernel records made from launch callbacks. Rotate with instruction counters holds
// CUPTI's kernel records off while a set runs (they read 0 while kernels are traced:
// counters.cc): a launch measured in a window would leave no record, and the profile
// fewer kernels than launches. Its record is made here from the callback, without
// times (placed when the profile is written: lib/store/measured_times.h) and without
// what only CUPTI's record says (registers, static shared memory: 0).
#include "lib/collect/counters.h"
#include "lib/collect/launch_params.h"

namespace cuscope::collect {

void CounterSampler::RecordHeldLaunch(const Context& c, CUpti_CallbackDomain domain,
                                      CUpti_CallbackId cbid, const CUpti_CallbackData* cb,
                                      const Signature& sig) {
  PendingKernel k;
  k.device_id = c.device_id;
  k.correlation_id = cb->correlationId;
  k.name = sig.name;
  k.mangled_name = cb->symbolName != nullptr ? cb->symbolName : "";
  k.grid = sig.grid;
  k.block = sig.block;
  k.context_id = cb->contextUid;
  LaunchTarget target;
  if (LaunchTargetOf(domain, cbid, cb, &target)) {
    k.dynamic_shared_bytes = target.dynamic_shared_bytes;
    uint32_t stream = 0;
    if (cuptiGetStreamIdEx(cb->context, target.stream, target.per_thread_default ? 1 : 0,
                           &stream) == CUPTI_SUCCESS) {
      k.stream_id = stream;
    }
  }
  absl::MutexLock lock(&out_mu_);
  pending_kernels_.push_back(std::move(k));
}

void CounterSampler::DrainHeldLaunches(model::Profile* batch) {
  for (const PendingKernel& p : pending_kernels_) {
    model::KernelRecord k;
    k.device_id = p.device_id;
    k.context_id = p.context_id;
    k.stream_id = p.stream_id;
    k.correlation_id = p.correlation_id;
    k.name = batch->strings.Intern(p.name);
    k.mangled_name = batch->strings.Intern(p.mangled_name);
    k.grid = p.grid;
    k.block = p.block;
    k.dynamic_shared_bytes = p.dynamic_shared_bytes;
    k.flags = model::kKernelCountersMeasured | model::kKernelFromLaunch;
    batch->kernels.push_back(k);
  }
  pending_kernels_.clear();
}

}  // namespace cuscope::collect
