#include "lib/collect/cupti_entry.h"

#include <cupti.h>
#include <dlfcn.h>

namespace cuscope::collect {

uint64_t CuptiNowNs() {
  uint64_t t = 0;
  if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) return 0;
  return t;
}

int HandNvtxToCupti(const void* get_export_table) {
  using InitFn = int (*)(const void*);
  void* cupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) cupti = dlopen("libcupti.so", RTLD_NOW | RTLD_NOLOAD);
  if (cupti == nullptr) cupti = dlopen("libcupti.so.13", RTLD_NOW);
  InitFn init =
      cupti ? reinterpret_cast<InitFn>(dlsym(cupti, "InitializeInjectionNvtx2")) : nullptr;
  if (init == nullptr) return -1;
  return init(get_export_table);
}

}  // namespace cuscope::collect
