// launch_bound: adds 1 to 50000 slices of 256 floats, one launch of a one-block kernel
// per slice. Each kernel runs a microsecond or two, less than it takes the CPU to
// launch the next one: the GPU waits on launches between them.
// Fixed: one launch of the same kernel over all the slices (one block per slice): the
// same additions, fused into one kernel.
#include "common.h"

namespace {

constexpr int kSlices = 50000, kSlice = 256;

__global__ void add_one(float* x) { x[blockIdx.x * size_t(kSlice) + threadIdx.x] += 1.0f; }

}  // namespace

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  advisor::Preload(add_one);
  float *x = nullptr, *h_x = nullptr;
  CHECK(cudaMalloc(&x, size_t(kSlices) * kSlice * sizeof(float)));
  CHECK(cudaMallocHost(&h_x, sizeof(float)));

  CHECK(cudaMemsetAsync(x, 0, size_t(kSlices) * kSlice * sizeof(float), 0));
  if (fixed) {
    add_one<<<kSlices, kSlice>>>(x);
  } else {
    for (int i = 0; i < kSlices; ++i) add_one<<<1, kSlice>>>(x + size_t(i) * kSlice);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_x, x + size_t(kSlices - 1) * kSlice, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("launch_bound%s: +1 on %d slices of %d floats in %s; last slice %.0f\n",
              fixed ? " (fixed)" : "", kSlices, kSlice,
              fixed ? "one launch of 50000 blocks" : "50000 launches of one block", *h_x);
  CHECK(cudaFreeHost(h_x));
  CHECK(cudaFree(x));
  return 0;
}
