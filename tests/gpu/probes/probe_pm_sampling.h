// What the PM sampling probes share: their axpy step kernel, the kernel activity
// records CUPTI hands back (start, end, grid), collected for matching samples to
// kernels by time, and a decoded sample's span.
#ifndef CUSCOPE_TESTS_GPU_PROBES_PROBE_PM_SAMPLING_H_
#define CUSCOPE_TESTS_GPU_PROBES_PROBE_PM_SAMPLING_H_

#include <cuda.h>
#include <cupti.h>
#include <cupti_pmsampling.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "probe_cupti.h"

__global__ void axpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

struct Kernel {
  uint64_t start, end;
  int grid;
};
inline std::mutex g_mu;  // guards g_kernels
inline std::vector<Kernel> g_kernels;

inline void CUPTIAPI KernelBufferRequested(uint8_t** buf, size_t* size, size_t* max) {
  *size = 8 << 20;
  *buf = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *max = 0;
}
inline void CUPTIAPI KernelBufferCompleted(CUcontext, uint32_t, uint8_t* buf, size_t,
                                           size_t valid) {
  CUpti_Activity* rec = nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      auto* k = reinterpret_cast<CUpti_ActivityKernel10*>(rec);
      g_kernels.push_back({k->start, k->end, static_cast<int>(k->gridX)});
    }
  }
  free(buf);
}

// Kernel records into g_kernels from now on.
inline void RecordKernels() {
  CK(cuptiActivityRegisterCallbacks(KernelBufferRequested, KernelBufferCompleted));
  CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
}

// PM sampling enabled on device 0 and configured with `config` (every `interval_ns` of
// GPU time, a hardware buffer of `buffer_bytes`, the latest or oldest records kept),
// and a counter data image of `image_samples` samples, initialized.
struct PmSampling {
  CUpti_PmSampling_Object* object = nullptr;
  std::vector<uint8_t> image;
};

// Resets `pm.image` to hold no sample.
inline void InitializeImage(PmSampling& pm) {
  CUpti_PmSampling_CounterDataImage_Initialize_Params ci = {
      CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  ci.pPmSamplingObject = pm.object;
  ci.counterDataSize = pm.image.size();
  ci.pCounterData = pm.image.data();
  CK(cuptiPmSamplingCounterDataImageInitialize(&ci));
}

inline PmSampling EnablePmSampling(const HostConfig& config,
                                   const std::vector<const char*>& metrics, uint64_t interval_ns,
                                   size_t buffer_bytes, bool keep_latest, uint32_t image_samples) {
  CUpti_PmSampling_Enable_Params en = {CUpti_PmSampling_Enable_Params_STRUCT_SIZE};
  en.deviceIndex = 0;
  CK(cuptiPmSamplingEnable(&en));
  CUpti_PmSampling_SetConfig_Params sc = {CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE};
  sc.pPmSamplingObject = en.pPmSamplingObject;
  sc.configSize = config.image.size();
  sc.pConfig = config.image.data();
  sc.hardwareBufferSize = buffer_bytes;
  sc.samplingInterval = interval_ns;
  sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  sc.hwBufferAppendMode = keep_latest ? CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST
                                      : CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  CK(cuptiPmSamplingSetConfig(&sc));
  CUpti_PmSampling_GetCounterDataSize_Params ds = {
      CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE};
  ds.pPmSamplingObject = en.pPmSamplingObject;
  ds.pMetricNames = const_cast<const char**>(metrics.data());
  ds.numMetrics = metrics.size();
  ds.maxSamples = image_samples;
  CK(cuptiPmSamplingGetCounterDataSize(&ds));
  PmSampling pm{en.pPmSamplingObject, std::vector<uint8_t>(ds.counterDataSize)};
  InitializeImage(pm);
  return pm;
}

// The start and end (GPU time, ns) of sample `index` of a decoded counter data image;
// false when CUPTI cannot say.
inline bool SampleSpan(CUpti_PmSampling_Object* object, const std::vector<uint8_t>& data,
                       size_t index, uint64_t* start, uint64_t* end) {
  CUpti_PmSampling_CounterData_GetSampleInfo_Params si = {
      CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE};
  si.pPmSamplingObject = object;
  si.pCounterDataImage = data.data();
  si.counterDataImageSize = data.size();
  si.sampleIndex = index;
  if (cuptiPmSamplingCounterDataGetSampleInfo(&si) != CUPTI_SUCCESS) return false;
  *start = si.startTimestamp;
  *end = si.endTimestamp;
  return true;
}

#endif  // CUSCOPE_TESTS_GPU_PROBES_PROBE_PM_SAMPLING_H_
