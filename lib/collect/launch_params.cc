#include "lib/collect/launch_params.h"

namespace cuscope::collect {

const std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>>& LaunchCallbacks() {
  static const auto* ids = new std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>>{
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz}};
  return *ids;
}

namespace {

bool DescribeRuntime(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, model::Dim3* grid,
                     model::Dim3* block) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
      auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(cb->functionParams);
      *grid = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
      *block = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(cb->functionParams);
      if (p->config == nullptr) return false;
      *grid = {p->config->gridDim.x, p->config->gridDim.y, p->config->gridDim.z};
      *block = {p->config->blockDim.x, p->config->blockDim.y, p->config->blockDim.z};
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

bool DescribeLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                    const CUpti_CallbackData* cb, model::Dim3* grid, model::Dim3* block) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return DescribeRuntime(cbid, cb, grid, block);
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
      *grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      *block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* p = static_cast<const cuLaunchKernelEx_params*>(cb->functionParams);
      if (p->config == nullptr) return false;
      *grid = {p->config->gridDimX, p->config->gridDimY, p->config->gridDimZ};
      *block = {p->config->blockDimX, p->config->blockDimY, p->config->blockDimZ};
      return true;
    }
    default:
      return false;
  }
}

namespace {

// The special handles name the default streams: CU_STREAM_LEGACY (0x1) and
// CU_STREAM_PER_THREAD (0x2), as cudaStreamLegacy and cudaStreamPerThread.
bool Named(CUstream stream, LaunchTarget* target) {
  if (stream == CU_STREAM_PER_THREAD) {
    target->stream = nullptr;
    target->per_thread_default = true;
  } else if (stream == CU_STREAM_LEGACY) {
    target->stream = nullptr;
    target->per_thread_default = false;
  }
  return true;
}

bool TargetOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* cb,
              LaunchTarget* target) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
        auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(cb->functionParams);
        *target = {p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
                   static_cast<uint32_t>(p->sharedMem)};
        return true;
      }
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
        auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(cb->functionParams);
        if (p->config == nullptr) return false;
        *target = {p->config->stream,
                   cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
                   static_cast<uint32_t>(p->config->dynamicSmemBytes)};
        return true;
      }
      default:
        return false;
    }
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
      *target = {p->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                 p->sharedMemBytes};
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* p = static_cast<const cuLaunchKernelEx_params*>(cb->functionParams);
      if (p->config == nullptr) return false;
      *target = {p->config->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
                 p->config->sharedMemBytes};
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

bool LaunchTargetOf(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                    const CUpti_CallbackData* cb, LaunchTarget* target) {
  return TargetOf(domain, cbid, cb, target) && Named(target->stream, target);
}

bool IsGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
  }
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

}  // namespace cuscope::collect
