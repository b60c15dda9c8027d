#include "lib/report/kineto_names.h"

namespace cuscope::report {

const char* KinetoMemoryKind(model::MemoryKind k) {
  switch (k) {
    case model::MemoryKind::kPageable:
      return "Pageable";
    case model::MemoryKind::kPinned:
      return "Pinned";
    case model::MemoryKind::kDevice:
      return "Device";
    case model::MemoryKind::kArray:
      return "Array";
    case model::MemoryKind::kManaged:
      return "Managed";
    case model::MemoryKind::kDeviceStatic:
      return "Device Static";
    case model::MemoryKind::kManagedStatic:
      return "Managed Static";
    case model::MemoryKind::kUnknown:
      break;
  }
  return "Unknown";
}

const char* KinetoSyncKind(model::SyncType t) {
  switch (t) {
    case model::SyncType::kEventSynchronize:
      return "Event Sync";
    case model::SyncType::kStreamWaitEvent:
      return "Stream Wait Event";
    case model::SyncType::kStreamSynchronize:
      return "Stream Sync";
    case model::SyncType::kContextSynchronize:
      return "Context Sync";
    case model::SyncType::kUnknown:
      break;
  }
  return "Unknown Sync";
}

}  // namespace cuscope::report
