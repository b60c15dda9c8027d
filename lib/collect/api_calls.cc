#include "lib/collect/api_calls.h"

#include <cupti.h>

#include "absl/strings/match.h"

namespace cuscope::collect {
namespace {

constexpr const char* kDefaultRuntimePrefixes[] = {"cudaLaunch",
                                                   "cudaGraphLaunch",
                                                   "cudaGraphUpload",
                                                   "cudaMemcpy",
                                                   "cudaMemset",
                                                   "cudaMalloc",
                                                   "cudaFree",
                                                   "cudaDeviceSynchronize",
                                                   "cudaStreamSynchronize",
                                                   "cudaEventSynchronize",
                                                   "cudaStreamWaitEvent",
                                                   "cudaEventRecord",
                                                   "cudaThreadSynchronize",
                                                   "cudaProfilerStart",
                                                   "cudaProfilerStop"};
// Driver calls that programs make directly (Triton launches through cuLaunchKernel).
constexpr const char* kDefaultDriverPrefixes[] = {
    "cuLaunchKernel",      "cuLaunchCooperativeKernel", "cuGraphLaunch", "cuCtxSynchronize",
    "cuStreamSynchronize", "cuEventSynchronize",        "cuModuleLoad",  "cuLibraryLoad",
    "cuEventRecord",       "cuStreamWaitEvent"};

template <size_t N>
bool HasPrefix(const char* name, const char* const (&prefixes)[N]) {
  for (const char* p : prefixes) {
    if (absl::StartsWith(name, p)) return true;
  }
  return false;
}

}  // namespace

bool IsDefaultRuntimeApi(const char* name) { return HasPrefix(name, kDefaultRuntimePrefixes); }
bool IsDefaultDriverApi(const char* name) { return HasPrefix(name, kDefaultDriverPrefixes); }

void DefaultApiCalls::Enable() {
  runtime_cbids_.clear();
  driver_cbids_.clear();
  for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS &&
        name != nullptr && IsDefaultRuntimeApi(name)) {
      cuptiActivityEnableRuntimeApi(cbid, 1);
      runtime_cbids_.push_back(cbid);
    }
  }
  for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS &&
        name != nullptr && IsDefaultDriverApi(name)) {
      cuptiActivityEnableDriverApi(cbid, 1);
      driver_cbids_.push_back(cbid);
    }
  }
}

void DefaultApiCalls::Disable() {
  for (uint32_t cbid : runtime_cbids_) cuptiActivityEnableRuntimeApi(cbid, 0);
  for (uint32_t cbid : driver_cbids_) cuptiActivityEnableDriverApi(cbid, 0);
  runtime_cbids_.clear();
  driver_cbids_.clear();
}

}  // namespace cuscope::collect
