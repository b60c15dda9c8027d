// shared_bank_conflicts: C = A x B^T for 32768 pairs of 32x32 float tiles, one tile
// pair per block iteration. Each block stages A and B in shared memory, and thread
// (tx, ty) reads row tx of B (B^T's column), b[tx][k]: the 32 threads of a warp read
// one bank, a 32-way conflict on every load of B.
// Fixed: B's tile is declared b[32][33]; the padding spreads column reads over the 32
// banks. The same loads, FMAs and results.
//
// Why a tile product rather than a bare transpose: a transpose reads each staged
// element once, so its time is half DRAM traffic that padding does not touch, while
// the rule's estimate (ncu's: conflicts/(1 + conflicts) of the time) assumes the
// conflicts are the kernel's time. The product reads each staged element 32 times,
// as the estimate assumes (README.md).
#include "common.h"

template <int kPad>
__global__ void __launch_bounds__(1024, 2)
    tile_abt(const float* a, const float* b, float* c, int tiles) {
  __shared__ float as[32][32];
  __shared__ float bs[32][32 + kPad];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    const size_t at = size_t(t) * 1024 + ty * 32 + tx;
    as[ty][tx] = a[at];
    bs[ty][tx] = b[at];
    __syncthreads();
    float sum = 0;
#pragma unroll
    for (int k = 0; k < 32; ++k) sum += as[ty][k] * bs[tx][k];
    c[at] = sum;
    __syncthreads();
  }
}

__global__ void fill_tiles(float* x, size_t n, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    x[i] = scale * static_cast<float>((i * 2654435761u) % 1024) / 1024.0f;
  }
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr int kTiles = 32768, kLaunches = 5;
  constexpr size_t n = size_t{kTiles} * 1024;
  auto* kernel = fixed ? tile_abt<1> : tile_abt<0>;
  advisor::Preload(kernel);
  advisor::Preload(fill_tiles);
  const int grid = advisor::BlocksPerSm(kernel, 1024) * advisor::SmCount();
  float *a = nullptr, *b = nullptr, *c = nullptr, *h_c = nullptr;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&c, n * sizeof(float)));
  CHECK(cudaMallocHost(&h_c, sizeof(float)));

  fill_tiles<<<1024, 256>>>(a, n, 1.0f);
  fill_tiles<<<1024, 256>>>(b, n, 0.5f);
  for (int i = 0; i < kLaunches; ++i) kernel<<<grid, dim3(32, 32)>>>(a, b, c, kTiles);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_c, c + 12345, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf(
      "shared_bank_conflicts%s: %d launches of C = A x B^T over %d pairs of 32x32 tiles, "
      "B staged as float[32][%d], %d blocks of 1024 threads; c[12345] = %.4f\n",
      fixed ? " (fixed)" : "", kLaunches, kTiles, fixed ? 33 : 32, grid, *h_c);
  CHECK(cudaFreeHost(h_c));
  CHECK(cudaFree(c));
  CHECK(cudaFree(b));
  CHECK(cudaFree(a));
  return 0;
}
