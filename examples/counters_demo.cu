// The counter workload of issue 3 and shared/device/measured.md: 5 SAXPY on 2^26
// floats, 3 naive SGEMM 2048 (16x16 blocks), 1,000 launches of a 1-block kernel.
//   counters_demo [saxpy=5] [sgemm=3] [tiny=1000] [gap_ms=0] [late=0]
// With gap_ms and late: then a pause of gap_ms, then `late` SAXPY on 2^25 floats (a
// signature not seen before), one every 50 ms (the idle launch callbacks' GPU test).
// Prints "KERNEL <name> <launch> <ms>" from CUDA events, and the wall time.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Naive SGEMM: C = A * B, one thread per element, n x n, row-major.
__global__ void sgemm_naive(int n, const float* A, const float* B, float* C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc = fmaf(A[row * n + k], B[k * n + col], acc);
  C[row * n + col] = acc;
}

__global__ void one_block(float* y) {
  if (threadIdx.x == 0) y[0] += 1.0f;
}

int main(int argc, char** argv) {
  int n_saxpy = argc > 1 ? std::atoi(argv[1]) : 5;
  int n_sgemm = argc > 2 ? std::atoi(argv[2]) : 3;
  int n_tiny = argc > 3 ? std::atoi(argv[3]) : 1000;
  int gap_ms = argc > 4 ? std::atoi(argv[4]) : 0;
  int n_late = argc > 5 ? std::atoi(argv[5]) : 0;
  const int n = 1 << 26;
  const int m = 2048;
  float *x, *y, *a, *b, *c;
  if (cudaMalloc(&x, size_t{n} * 4) != cudaSuccess) {
    std::fprintf(stderr, "counters_demo: no CUDA device\n");
    return 3;
  }
  cudaMalloc(&y, size_t{n} * 4);
  cudaMalloc(&a, size_t{m} * m * 4);
  cudaMalloc(&b, size_t{m} * m * 4);
  cudaMalloc(&c, size_t{m} * m * 4);
  cudaMemset(x, 0, size_t{n} * 4);
  cudaMemset(y, 0, size_t{n} * 4);
  cudaMemset(a, 0, size_t{m} * m * 4);
  cudaMemset(b, 0, size_t{m} * m * 4);
  cudaDeviceSynchronize();
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n_saxpy; ++i) {
    cudaEventRecord(e0);
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    std::printf("KERNEL saxpy %d %.4f\n", i, ms);
  }
  dim3 block(16, 16), grid(m / 16, m / 16);
  for (int i = 0; i < n_sgemm; ++i) {
    cudaEventRecord(e0);
    sgemm_naive<<<grid, block>>>(m, a, b, c);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    std::printf("KERNEL sgemm_naive %d %.4f\n", i, ms);
  }
  for (int i = 0; i < n_tiny; ++i) one_block<<<1, 32>>>(y);
  cudaDeviceSynchronize();
  if (n_late > 0) std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms));
  for (int i = 0; i < n_late; ++i) {
    saxpy<<<(n / 2 + 255) / 256, 256>>>(n / 2, 2.0f, x, y);
    cudaDeviceSynchronize();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("WALL %.4f s for %d launches\n", s, n_saxpy + n_sgemm + n_tiny + n_late);
  cudaFree(x);
  cudaFree(y);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  return 0;
}
