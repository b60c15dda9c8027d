#include "lib/collect/visible_chip.h"

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <dlfcn.h>

#include "absl/strings/str_cat.h"
#include "lib/collect/cupti_result.h"

namespace cuscope::collect {

absl::StatusOr<std::string> VisibleChip() {
  // The driver is loaded here, not linked: libcuscope.so loads on machines without one.
  void* cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (cuda == nullptr) return absl::NotFoundError("no CUDA driver (libcuda.so.1) on this machine");
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(cuda, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(cuda, "cuDeviceGetCount"));
  if (init == nullptr || count == nullptr)
    return absl::NotFoundError("the CUDA driver lacks cuInit");
  int r = init(0);
  int n = 0;
  if (r == 0) r = count(&n);
  if (r != 0 || n == 0) {
    return absl::NotFoundError(r != 0 ? absl::StrCat("no GPU visible (cuInit: CUDA error ", r, ")")
                                      : "no GPU visible");
  }
  // CUPTI's profiler interface must be initialized before it answers device queries
  // (as in CUPTI's samples); without it cuptiDeviceGetChipName crashes.
  CUpti_Profiler_Initialize_Params init_params = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  CUptiResult ir = cuptiProfilerInitialize(&init_params);
  if (ir != CUPTI_SUCCESS) {
    return absl::UnavailableError(
        absl::StrCat("cuptiProfilerInitialize failed: ", CuptiResultString(ir)));
  }
  CUpti_Device_GetChipName_Params p = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  p.deviceIndex = 0;
  CUptiResult cr = cuptiDeviceGetChipName(&p);
  if (cr != CUPTI_SUCCESS || p.pChipName == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cuptiDeviceGetChipName failed: ", CuptiResultString(cr)));
  }
  return std::string(p.pChipName);
}

}  // namespace cuscope::collect
