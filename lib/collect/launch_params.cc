#include "lib/collect/launch_params.h"

#include "lib/collect/driver.h"

namespace cuscope::collect {

namespace {

// The callbacks of the calls that begin a stream capture, in `domain`.
const std::vector<CUpti_CallbackId>& CaptureBeginIds(CUpti_CallbackDomain domain) {
  static const auto* runtime = new std::vector<CUpti_CallbackId>{
      CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000,
      CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000,
      CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030,
      CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030};
  static const auto* driver =
      new std::vector<CUpti_CallbackId>{CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,
                                        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
                                        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,
                                        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
                                        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph,
                                        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz};
  return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? *runtime : *driver;
}

// The special handles name the default streams: CU_STREAM_LEGACY (0x1) and
// CU_STREAM_PER_THREAD (0x2), as cudaStreamLegacy and cudaStreamPerThread.
void Target(CUstream stream, bool per_thread_call, size_t dynamic_shared, LaunchShape* shape) {
  shape->stream = stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD ? nullptr : stream;
  shape->per_thread_default =
      stream == CU_STREAM_PER_THREAD || (per_thread_call && stream != CU_STREAM_LEGACY);
  shape->dynamic_shared_bytes = static_cast<uint32_t>(dynamic_shared);
}

bool DescribeRuntime(CUpti_CallbackId cbid, const CUpti_CallbackData* cb, LaunchShape* shape) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
      auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(cb->functionParams);
      shape->grid = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
      shape->block = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
      Target(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000, p->sharedMem,
             shape);
      return true;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(cb->functionParams);
      if (p->config == nullptr) return false;
      shape->grid = {p->config->gridDim.x, p->config->gridDim.y, p->config->gridDim.z};
      shape->block = {p->config->blockDim.x, p->config->blockDim.y, p->config->blockDim.z};
      Target(p->config->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
             p->config->dynamicSmemBytes, shape);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

const std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>>& LaunchCallbacks() {
  static const auto* ids = [] {
    auto* v = new std::vector<std::pair<CUpti_CallbackDomain, CUpti_CallbackId>>{
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
    for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
      for (CUpti_CallbackId cbid : CaptureBeginIds(domain)) v->push_back({domain, cbid});
    }
    return v;
  }();
  return *ids;
}

bool DescribeLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                    const CUpti_CallbackData* cb, LaunchShape* shape) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return DescribeRuntime(cbid, cb, shape);
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
      shape->grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      shape->block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      Target(p->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, p->sharedMemBytes,
             shape);
      return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      auto* p = static_cast<const cuLaunchKernelEx_params*>(cb->functionParams);
      if (p->config == nullptr) return false;
      shape->grid = {p->config->gridDimX, p->config->gridDimY, p->config->gridDimZ};
      shape->block = {p->config->blockDimX, p->config->blockDimY, p->config->blockDimZ};
      Target(p->config->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
             p->config->sharedMemBytes, shape);
      return true;
    }
    default:
      return false;
  }
}

bool IsGraphLaunch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000 ||
           cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000;
  }
  return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch ||
         cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

bool IsCaptureBegin(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return false;
  for (CUpti_CallbackId id : CaptureBeginIds(domain)) {
    if (id == cbid) return true;
  }
  return false;
}

bool LaunchCaptured(const LaunchShape& shape) {
  using IsCapturing = CUresult (*)(CUstream, CUstreamCaptureStatus*);
  // The driver is loaded before any launch callback; looked up once.
  static const auto is_capturing =
      reinterpret_cast<IsCapturing>(LoadedDriverSymbol("cuStreamIsCapturing"));
  if (is_capturing == nullptr) return false;
  // The stream as the call named it (LaunchShape maps the default streams to nullptr).
  CUstream stream = shape.stream;
  if (stream == nullptr)
    stream = shape.per_thread_default ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (is_capturing(stream, &status) != CUDA_SUCCESS) return true;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

}  // namespace cuscope::collect
