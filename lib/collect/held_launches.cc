#include "lib/collect/held_launches.h"

#include <utility>

namespace cuscope::collect {

void HeldLaunches::Record(uint32_t device_id, const CUpti_CallbackData* cb, const Signature& sig,
                          const LaunchShape& shape) {
  MadeKernel k;
  k.device_id = device_id;
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
  made_.insert_or_assign(k.correlation_id, std::move(k));
}

std::optional<MadeKernel> HeldLaunches::Take(const CUpti_CallbackData* cb) {
  auto it = made_.find(cb->correlationId);
  if (it == made_.end()) return std::nullopt;
  MadeKernel k = std::move(it->second);
  made_.erase(it);
  // A launch that failed ran nothing (cudaSuccess and CUDA_SUCCESS are both 0).
  const auto* returned = static_cast<const int*>(cb->functionReturnValue);
  if (returned != nullptr && *returned != 0) return std::nullopt;
  return k;
}

}  // namespace cuscope::collect
