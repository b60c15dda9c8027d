// Capture control with cudaProfilerStart/Stop: 10 launches before, 20 between, 10
// after. Under `cuscope run --capture=profiler-api` the profile holds the 20.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>

__global__ void work(float* y) { y[threadIdx.x] += 1.0f; }

int main() {
  float* y = nullptr;
  if (cudaMalloc(&y, 4096) != cudaSuccess) return 3;
  for (int i = 0; i < 10; ++i) work<<<1, 32>>>(y);
  cudaDeviceSynchronize();
  cudaProfilerStart();
  for (int i = 0; i < 20; ++i) work<<<1, 32>>>(y);
  cudaDeviceSynchronize();
  cudaProfilerStop();
  for (int i = 0; i < 10; ++i) work<<<1, 32>>>(y);
  cudaDeviceSynchronize();
  std::printf("LAUNCHES 40 CAPTURED 20\n");
  cudaFree(y);
  return 0;
}
