// The process's one CUPTI callback subscriber, shared by the parts of cuscope that
// need API callbacks (counters: launches; capture: cudaProfilerStart/Stop and
// NVTX ranges). CUPTI allows one subscriber per process.
#ifndef CUSCOPE_LIB_COLLECT_CALLBACKS_H_
#define CUSCOPE_LIB_COLLECT_CALLBACKS_H_

#include <cupti.h>

#include "absl/status/status.h"

namespace cuscope::collect::callbacks {

using Handler = void (*)(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);

// Subscribes on first use; adds `handler` (at most 4). Unavailable if another CUPTI
// client holds the subscription (torch.profiler, nsys, ...).
absl::Status AddHandler(Handler handler);
void RemoveHandler(Handler handler);
absl::Status Enable(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

}  // namespace cuscope::collect::callbacks

#endif  // CUSCOPE_LIB_COLLECT_CALLBACKS_H_
