// N launches of a 1-block kernel: the overhead benchmark's workload.
//   launch_loop [launches=100000]
// Prints "LOOP <launches> <microseconds per launch>".
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void one_block(float* y) {
  if (threadIdx.x == 0) y[blockIdx.x] += 1.0f;
}

int main(int argc, char** argv) {
  long launches = argc > 1 ? std::atol(argv[1]) : 100000;
  float* y = nullptr;
  if (cudaMalloc(&y, 1024) != cudaSuccess) {
    std::fprintf(stderr, "launch_loop: no CUDA device\n");
    return 3;
  }
  cudaMemset(y, 0, 1024);
  for (int i = 0; i < 100; ++i) one_block<<<1, 32>>>(y);  // warm up
  cudaDeviceSynchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < launches; ++i) one_block<<<1, 32>>>(y);
  cudaDeviceSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
  std::printf("LOOP %ld %.4f\n", launches, us / launches);
  cudaFree(y);
  return 0;
}
