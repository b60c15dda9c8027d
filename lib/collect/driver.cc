#include "lib/collect/driver.h"

#include <dlfcn.h>

namespace cuscope::collect {

void* LoadedDriverSymbol(const char* name) {
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (cuda == nullptr) return nullptr;
  void* symbol = dlsym(cuda, name);
  dlclose(cuda);  // the process keeps the driver loaded: the symbol stays valid
  return symbol;
}

bool DriverInstalled() {
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (cuda == nullptr) cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (cuda == nullptr) return false;
  dlclose(cuda);
  return true;
}

}  // namespace cuscope::collect
