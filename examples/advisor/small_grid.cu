// small_grid: maps 4M floats through a 256-step polynomial iteration 3 times, with a
// grid of 16 blocks of 1024 threads (one block per "channel" of the data) striding
// over the input: 16 SMs work, the others stay idle.
// Fixed: one full wave (blocks per SM x SMs) strides over the same input.
#include "common.h"

__global__ void __launch_bounds__(1024, 2) heavy_map(const float* x, float* y, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    float v = x[i];
    for (int k = 0; k < 256; ++k) v = v * 0.999f + 0.001f;
    y[i] = v;
  }
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr size_t n = size_t{1} << 22;
  constexpr int kThreads = 1024, kLaunches = 3;
  advisor::Preload(heavy_map);
  advisor::Preload(advisor::fill_ramp);
  const int grid = fixed ? advisor::BlocksPerSm(heavy_map, kThreads) * advisor::SmCount() : 16;
  float *x = nullptr, *y = nullptr, *h_y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMallocHost(&h_y, sizeof(float)));

  advisor::fill_ramp<<<1024, 256>>>(x, n);
  for (int i = 0; i < kLaunches; ++i) heavy_map<<<grid, kThreads>>>(x, y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_y, y + 777, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf(
      "small_grid%s: %d maps of %zu floats, 256 FMAs each, by %d blocks of %d threads on "
      "%d SMs; y[777] = %.6f\n",
      fixed ? " (fixed)" : "", kLaunches, n, grid, kThreads, advisor::SmCount(), *h_y);
  CHECK(cudaFreeHost(h_y));
  CHECK(cudaFree(y));
  CHECK(cudaFree(x));
  return 0;
}
