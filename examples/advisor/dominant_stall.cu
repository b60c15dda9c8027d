// dominant_stall: sums each block of 1024 floats of a 64M-float array (block sums, 5
// times). Every thread stages one value in shared memory; then thread 0 adds the 1024
// values one after the other while the other 31 warps wait at __syncthreads: the
// warps spend most of their cycles stalled on the barrier.
// Fixed: 256 threads per block, each loading 4 of the block's values at once (float4:
// four times the bytes in flight), then a tree reduction (warp shuffles, then one warp
// over the 8 warp sums): the same sums, no warp waiting on a serial one, and enough
// loads in flight for the kernel to be memory-bound rather than latency-bound.
#include "common.h"

constexpr int kThreads = 1024;

__global__ void __launch_bounds__(kThreads, 2) block_sum(const float* x, float* sums) {
  __shared__ float values[kThreads];
  values[threadIdx.x] = x[blockIdx.x * size_t(kThreads) + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float sum = 0;
    for (int j = 0; j < kThreads; ++j) sum += values[j];
    sums[blockIdx.x] = sum;
  }
  __syncthreads();
}

constexpr int kFixedThreads = kThreads / 4;

__global__ void __launch_bounds__(kFixedThreads) block_sum_fixed(const float4* x, float* sums) {
  __shared__ float warp_sums[kFixedThreads / 32];
  const float4 v = x[blockIdx.x * size_t(kFixedThreads) + threadIdx.x];
  float sum = (v.x + v.y) + (v.z + v.w);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < kFixedThreads / 32 ? warp_sums[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = sum;
  }
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr int kBlocks = 65536, kLaunches = 5;
  constexpr size_t n = size_t{kBlocks} * kThreads;
  advisor::Preload(block_sum);
  advisor::Preload(block_sum_fixed);
  advisor::Preload(advisor::fill_ones);
  float *x = nullptr, *sums = nullptr, *h_sum = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&sums, kBlocks * sizeof(float)));
  CHECK(cudaMallocHost(&h_sum, sizeof(float)));

  advisor::fill_ones<<<1024, 256>>>(x, n);
  for (int i = 0; i < kLaunches; ++i) {
    if (fixed) {
      block_sum_fixed<<<kBlocks, kFixedThreads>>>(reinterpret_cast<const float4*>(x), sums);
    } else {
      block_sum<<<kBlocks, kThreads>>>(x, sums);
    }
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_sum, sums + 4321, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf(
      "dominant_stall%s: %d launches of %d block sums of %d floats, %s; sums[4321] = "
      "%.0f\n",
      fixed ? " (fixed)" : "", kLaunches, kBlocks, kThreads,
      fixed ? "float4 loads and a tree reduction"
            : "thread 0 adding serially while the block waits",
      *h_sum);
  CHECK(cudaFreeHost(h_sum));
  CHECK(cudaFree(sums));
  CHECK(cudaFree(x));
  return 0;
}
