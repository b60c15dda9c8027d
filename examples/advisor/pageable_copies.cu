// pageable_copies: uploads 64 MiB of weights from pinned memory, then 16 batches of
// 32 MiB with cudaMemcpy from pageable (malloc'ed) memory, which the driver stages
// through its own pinned buffer at a fraction of the bus's speed.
// Fixed: the batches live in pinned memory (cudaMallocHost) and go up with
// cudaMemcpyAsync: the same bytes in the same direction.
//
// The pinned weights copy is in both variants: it gives the rule the pinned bandwidth
// of this machine to estimate against. Host buffers are allocated and written before
// the first copy, and everything runs on one stream (the default stream rule needs two).
#include <cstdlib>
#include <cstring>

#include "common.h"

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr size_t kWeights = size_t{64} << 20, kBatch = size_t{32} << 20;
  constexpr int kBatches = 16;
  char *d_weights = nullptr, *d_batches = nullptr, *h_weights = nullptr, *h_batches = nullptr;
  CHECK(cudaMalloc(&d_weights, kWeights));
  CHECK(cudaMalloc(&d_batches, kBatch * kBatches));
  CHECK(cudaMallocHost(&h_weights, kWeights));
  if (fixed) {
    CHECK(cudaMallocHost(&h_batches, kBatch * kBatches));
  } else {
    h_batches = static_cast<char*>(std::malloc(kBatch * kBatches));
    if (h_batches == nullptr) return 1;
  }
  std::memset(h_weights, 1, kWeights);
  std::memset(h_batches, 2, kBatch * kBatches);  // touched: no page faults while copying

  CHECK(cudaMemcpyAsync(d_weights, h_weights, kWeights, cudaMemcpyHostToDevice, 0));
  for (int i = 0; i < kBatches; ++i) {
    char* dst = d_batches + i * kBatch;
    const char* src = h_batches + i * kBatch;
    if (fixed) {
      CHECK(cudaMemcpyAsync(dst, src, kBatch, cudaMemcpyHostToDevice, 0));
    } else {
      CHECK(cudaMemcpy(dst, src, kBatch, cudaMemcpyHostToDevice));
    }
  }
  CHECK(cudaDeviceSynchronize());
  std::printf(
      "pageable_copies%s: 64 MiB of weights from pinned memory, then %d batches of %zu MiB "
      "host to device from %s\n",
      fixed ? " (fixed)" : "", kBatches, kBatch >> 20,
      fixed ? "pinned memory with cudaMemcpyAsync" : "pageable memory with cudaMemcpy");
  if (fixed) {
    CHECK(cudaFreeHost(h_batches));
  } else {
    std::free(h_batches);
  }
  CHECK(cudaFreeHost(h_weights));
  CHECK(cudaFree(d_batches));
  CHECK(cudaFree(d_weights));
  return 0;
}
