// low_occupancy: sums 13M floats (132 x 98304 on an H200) 3 times; each block of 128
// threads stages a tile of the input in shared memory and sums it from there. With a
// 24576-float tile (96 KiB of shared memory per block) two blocks fit on an SM: 8 warps
// of 64, 12.5% occupancy, too few loads in flight to cover memory latency.
// Fixed: a 2048-float tile (8 KiB): 16 blocks per SM, 100% occupancy; the same sum.
// Each variant launches one full wave (blocks per SM x SMs) that strides over the input.
#include "common.h"

__global__ void __launch_bounds__(128, 16)
    staged_sum(const float* x, size_t n, int tile, float* total) {
  extern __shared__ float staged[];
  __shared__ float warp_sums[4];
  float sum = 0;
  for (size_t base = size_t(blockIdx.x) * tile; base < n; base += size_t(gridDim.x) * tile) {
    for (int j = threadIdx.x; j < tile; j += blockDim.x) staged[j] = x[base + j];
    __syncthreads();
    for (int j = threadIdx.x; j < tile; j += blockDim.x) sum += staged[j];
    __syncthreads();
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(total, warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3]);
  }
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr int kThreads = 128, kLaunches = 3;
  const int tile = fixed ? 2048 : 24576;
  const size_t shared = tile * sizeof(float);
  CHECK(cudaFuncSetAttribute(staged_sum, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(shared)));
  advisor::Preload(staged_sum);
  advisor::Preload(advisor::fill_ones);
  const int sms = advisor::SmCount();
  const int per_sm = advisor::BlocksPerSm(staged_sum, kThreads, shared);
  const int grid = per_sm * sms;
  // A multiple of both variants' rounds (2 x 24576 and 16 x 2048 floats per SM).
  const size_t n = size_t(sms) * 98304;
  float *x = nullptr, *total = nullptr, *h_total = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&total, sizeof(float)));
  CHECK(cudaMallocHost(&h_total, sizeof(float)));

  advisor::fill_ones<<<1024, 256>>>(x, n);
  CHECK(cudaMemsetAsync(total, 0, sizeof(float), 0));
  for (int i = 0; i < kLaunches; ++i) {
    staged_sum<<<grid, kThreads, shared>>>(x, n, tile, total);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_total, total, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf(
      "low_occupancy%s: %d sums of %zu floats, tiles of %d floats (%zu KiB shared per "
      "block), %d blocks per SM x %d SMs of %d threads; total %.0f\n",
      fixed ? " (fixed)" : "", kLaunches, n, tile, shared >> 10, per_sm, sms, kThreads, *h_total);
  CHECK(cudaFreeHost(h_total));
  CHECK(cudaFree(total));
  CHECK(cudaFree(x));
  return 0;
}
