// uncoalesced_access: transposes an 8192x8192 float matrix 5 times, each thread
// reading in[y][x] (a warp reads one row: coalesced) and writing out[x][y] (a warp
// writes one column: 32 sectors per request, 4 useful bytes in each 32-byte sector).
// Fixed: the classic tiled transpose: a 32x32 tile staged in shared memory
// (float[32][33], no bank conflicts), so that both the loads and the stores of a warp
// touch consecutive addresses.
#include "common.h"

constexpr int kTile = 32, kRows = 8;  // blocks of 32 x 8 threads, 4 elements each

__global__ void transpose_naive(const float* in, float* out, int n) {
  const int x = blockIdx.x * kTile + threadIdx.x;
  const int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows) out[size_t(x) * n + y + j] = in[size_t(y + j) * n + x];
}

__global__ void transpose_tiled(const float* in, float* out, int n) {
  __shared__ float tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    tile[threadIdx.y + j][threadIdx.x] = in[size_t(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int j = 0; j < kTile; j += kRows)
    out[size_t(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void fill_matrix(float* x, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    x[i] = static_cast<float>(i % 8191);
  }
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr int n = 8192, kLaunches = 5;
  auto* kernel = fixed ? transpose_tiled : transpose_naive;
  advisor::Preload(kernel);
  advisor::Preload(fill_matrix);
  float *in = nullptr, *out = nullptr, *h_out = nullptr;
  CHECK(cudaMalloc(&in, size_t(n) * n * sizeof(float)));
  CHECK(cudaMalloc(&out, size_t(n) * n * sizeof(float)));
  CHECK(cudaMallocHost(&h_out, sizeof(float)));

  fill_matrix<<<1024, 256>>>(in, size_t(n) * n);
  for (int i = 0; i < kLaunches; ++i)
    kernel<<<dim3(n / kTile, n / kTile), dim3(kTile, kRows)>>>(in, out, n);
  CHECK(cudaGetLastError());
  // out[1][2] = in[2][1]
  CHECK(cudaMemcpy(h_out, out + n + 2, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("uncoalesced_access%s: %d transposes of a %dx%d float matrix, %s; out[1][2] = %.0f\n",
              fixed ? " (fixed)" : "", kLaunches, n, n,
              fixed ? "tiled through shared memory" : "each warp writing a column", *h_out);
  CHECK(cudaFreeHost(h_out));
  CHECK(cudaFree(out));
  CHECK(cudaFree(in));
  return 0;
}
