// tail_wave: 3 launches of a kernel whose blocks of 1024 threads stage a chunk of 32768
// floats (128 KiB: one block per SM) in shared memory and run a 1024-step FMA chain on
// each. The input is 1.1 waves of chunks (SMs x 1.1), one block per chunk: the last
// tenth of the blocks runs as a second wave on a tenth of the GPU and takes as long as
// the first.
// Fixed: one full wave of blocks, each taking an equal share of the same items
// (1.1 chunks, staged in two pieces).
#include "common.h"

constexpr int kThreads = 1024, kChunk = 32768, kSteps = 1024;

__global__ void __launch_bounds__(kThreads, 1) chunk_work(const float* x, float* y, size_t n) {
  extern __shared__ float staged[];  // kChunk floats
  const size_t begin = n * blockIdx.x / gridDim.x, end = n * (blockIdx.x + 1) / gridDim.x;
  for (size_t base = begin; base < end; base += kChunk) {
    const int count = static_cast<int>(end - base < kChunk ? end - base : kChunk);
    for (int j = threadIdx.x; j < count; j += kThreads) staged[j] = x[base + j];
    __syncthreads();
    for (int j = threadIdx.x; j < count; j += kThreads) {
      float v = staged[j];
      for (int k = 0; k < kSteps; ++k) v = v * 0.999f + 0.001f;
      staged[j] = v;
    }
    __syncthreads();
    for (int j = threadIdx.x; j < count; j += kThreads) y[base + j] = staged[j];
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr int kLaunches = 3;
  constexpr size_t kShared = kChunk * sizeof(float);
  CHECK(cudaFuncSetAttribute(chunk_work, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(kShared)));
  advisor::Preload(chunk_work);
  advisor::Preload(advisor::fill_ramp);
  const int wave = advisor::BlocksPerSm(chunk_work, kThreads, kShared) * advisor::SmCount();
  const int chunks = wave + (wave + 9) / 10;  // 1.1 waves of chunks
  const size_t n = size_t(chunks) * kChunk;
  const int grid = fixed ? wave : chunks;
  float *x = nullptr, *y = nullptr, *h_y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMallocHost(&h_y, sizeof(float)));

  advisor::fill_ramp<<<1024, 256>>>(x, n);
  for (int i = 0; i < kLaunches; ++i) chunk_work<<<grid, kThreads, kShared>>>(x, y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_y, y + 777, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf(
      "tail_wave%s: %d launches over %zu floats (%d chunks of %d), %d blocks of %d "
      "threads, one wave = %d blocks; y[777] = %.6f\n",
      fixed ? " (fixed)" : "", kLaunches, n, chunks, kChunk, grid, kThreads, wave, *h_y);
  CHECK(cudaFreeHost(h_y));
  CHECK(cudaFree(y));
  CHECK(cudaFree(x));
  return 0;
}
