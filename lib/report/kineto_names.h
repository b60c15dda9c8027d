// The names Kineto (PyTorch's profiler) gives in its Chrome traces, which the
// trace export follows so that Holistic Trace Analysis reads it.
#ifndef CUSCOPE_LIB_REPORT_KINETO_NAMES_H_
#define CUSCOPE_LIB_REPORT_KINETO_NAMES_H_

#include "lib/model/profile.h"

namespace cuscope::report {

// "Pageable", "Device", ... as in "Memcpy HtoD (Pageable -> Device)".
const char* KinetoMemoryKind(model::MemoryKind k);
// "cuda_sync_kind" values: "Event Sync", "Stream Sync", ...
const char* KinetoSyncKind(model::SyncType t);

}  // namespace cuscope::report

#endif  // CUSCOPE_LIB_REPORT_KINETO_NAMES_H_
