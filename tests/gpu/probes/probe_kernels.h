// What the PM sampling probes share: their axpy step kernel, and the kernel activity
// records CUPTI hands back (start, end, grid), collected for matching samples to
// kernels by time.
#ifndef CUSCOPE_TESTS_GPU_PROBES_PROBE_KERNELS_H_
#define CUSCOPE_TESTS_GPU_PROBES_PROBE_KERNELS_H_

#include <cuda.h>
#include <cupti.h>

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

#endif  // CUSCOPE_TESTS_GPU_PROBES_PROBE_KERNELS_H_
