// Kernel records made from launch callbacks. Rotate with instruction counters holds
// CUPTI's kernel records off while a set runs (they read 0 while kernels are traced:
// counters.cc): a launch measured in a window would leave no record, and the profile
// fewer kernels than launches. Its record is made here from the callback, without
// times (placed when the profile is written: lib/store/measured_times.h) and without
// what only CUPTI's record says (registers, static shared memory: 0); only while
// CUPTI's kernel records are really off (the tracer took the switch, capture would
// record), and kept only for a launch that succeeded.
#include "lib/collect/counters.h"

namespace cuscope::collect {

namespace {
// Records waiting for a drain at most (a drain comes with each activity buffer; if the
// buffers stop coming, the queue stops growing).
constexpr size_t kMaxPendingKernels = size_t{1} << 18;
}  // namespace

void CounterSampler::RecordHeldLaunch(Context& c, const CUpti_CallbackData* cb,
                                      const Signature& sig, const LaunchShape& shape) {
  PendingKernel k;
  k.device_id = c.device_id;
  k.correlation_id = cb->correlationId;
  k.name = sig.name;
  k.mangled_name = cb->symbolName != nullptr ? cb->symbolName : "";
  k.grid = sig.grid;
  k.block = sig.block;
  k.context_id = cb->contextUid;
  k.dynamic_shared_bytes = shape.dynamic_shared_bytes;
  uint32_t stream = 0;
  if (cuptiGetStreamIdEx(cb->context, shape.stream, shape.per_thread_default ? 1 : 0, &stream) ==
      CUPTI_SUCCESS) {
    k.stream_id = stream;
  }
  c.made.insert_or_assign(k.correlation_id, std::move(k));
}

void CounterSampler::QueueHeldLaunch(Context& c, const CUpti_CallbackData* cb) {
  auto it = c.made.find(cb->correlationId);
  if (it == c.made.end()) return;
  PendingKernel k = std::move(it->second);
  c.made.erase(it);
  // A launch that failed ran nothing (cudaSuccess and CUDA_SUCCESS are both 0).
  const auto* returned = static_cast<const int*>(cb->functionReturnValue);
  if (returned != nullptr && *returned != 0) return;
  {
    absl::MutexLock lock(&out_mu_);
    if (pending_kernels_.size() < kMaxPendingKernels) {
      pending_kernels_.push_back(std::move(k));
      return;
    }
  }
  if (made_dropped_++ == 0) {
    Note("counters.made_records",
         "kernel records made from launches were left out: none was drained (the activity "
         "buffers stopped coming back)");
  }
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
