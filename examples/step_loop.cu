// A loop shaped like a training step: every step launches the same `kernels` SAXPYs in
// the same order, the i-th on (i + 1) x 8,192 floats (its own grid: a signature of its
// own, with exactly that many FFMA), then synchronizes. Rotate's windows with a time
// budget hold fewer launches than such a step (lib/collect/rotate_driver.h).
//   step_loop [steps=2000] [kernels=100]
// Prints "STEPS <steps> <kernels> <ms per step>".
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int kernels = argc > 2 ? std::atoi(argv[2]) : 100;
  if (steps <= 0 || kernels <= 0) {
    std::fprintf(stderr, "step_loop: steps and kernels must be positive\n");
    return 2;
  }
  const int chunk = 8192;  // 32 blocks of 256
  const size_t n = size_t{chunk} * kernels;
  float *x = nullptr, *y = nullptr;
  if (cudaMalloc(&x, n * 4) != cudaSuccess) {
    std::fprintf(stderr, "step_loop: no CUDA device\n");
    return 3;
  }
  cudaMalloc(&y, n * 4);
  cudaMemset(x, 0, n * 4);
  cudaMemset(y, 0, n * 4);
  cudaDeviceSynchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) {
    for (int i = 0; i < kernels; ++i) {
      const int len = (i + 1) * chunk;
      saxpy<<<(len + 255) / 256, 256>>>(len, 2.0f, x, y);
    }
    cudaDeviceSynchronize();
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("STEPS %d %d %.4f\n", steps, kernels, ms / steps);
  cudaFree(x);
  cudaFree(y);
  return 0;
}
