// What the advisor examples share (examples/advisor/README.md): the `fixed` argument,
// CUDA error checks, busy-waits of a known length on the host and on the GPU, and
// module preloading (so that lazy loading never opens a gap in the measured part).
#ifndef CUSCOPE_EXAMPLES_ADVISOR_COMMON_H_
#define CUSCOPE_EXAMPLES_ADVISOR_COMMON_H_

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

namespace advisor {

// No argument: the example; `fixed`: the fixed variant (the same work, the problem removed).
inline bool FixedVariant(int argc, char** argv) {
  if (argc == 1) return false;
  if (argc == 2 && std::strcmp(argv[1], "fixed") == 0) return true;
  std::fprintf(stderr, "usage: %s [fixed]\n", argv[0]);
  std::exit(2);
}

// Host work of a known length (the examples' stand-in for data loading, Python, logging).
inline void SpinHostUs(double us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < end) {
  }
}

__device__ inline unsigned long long GlobalNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// GPU work of a known length: every block of a grid of at most one wave busy-waits
// `ns`, then adds `value` to out[blockIdx.x].
__global__ void timed_work(float* out, float value, unsigned long long ns) {
  const unsigned long long start = GlobalNs();
  while (GlobalNs() - start < ns) {
  }
  if (threadIdx.x == 0) out[blockIdx.x] += value;
}

// Input data, grid-stride: all ones, or a ramp of 1000 steps in [0, 1).
__global__ void fill_ones(float* x, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    x[i] = 1.0f;
  }
}

__global__ void fill_ramp(float* x, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    x[i] = static_cast<float>(i % 1000) / 1000.0f;
  }
}

// Loads a kernel's module now (CUDA loads modules lazily, at a kernel's first launch).
template <typename Kernel>
void Preload(Kernel* kernel) {
  cudaFuncAttributes attributes;
  CHECK(cudaFuncGetAttributes(&attributes, kernel));
}

inline int SmCount() {
  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// Blocks of `kernel` resident per SM with `threads` threads and `shared` dynamic bytes.
template <typename Kernel>
int BlocksPerSm(Kernel* kernel, int threads, size_t shared = 0) {
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared));
  return blocks;
}

}  // namespace advisor

#endif  // CUSCOPE_EXAMPLES_ADVISOR_COMMON_H_
