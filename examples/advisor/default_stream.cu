// default_stream: uploads 32 chunks of 32 MiB from pinned memory and runs a 0.6 ms
// kernel on each, the kernels on a stream of the program's own, the copies with
// cudaMemcpyAsync on stream 0, the legacy default stream. The legacy default stream
// waits for every (blocking) stream and they wait for it: each copy waits for the
// previous kernel and each kernel for its copy; nothing overlaps.
// Fixed: the copies go on a second stream of the program's own (non-blocking), into
// two device buffers in turn, ordered by events: chunk i + 1 is uploaded while chunk i
// is processed. The same copies and kernels.
#include "common.h"

namespace {

constexpr int kChunks = 32, kHostChunks = 8;
constexpr size_t kChunk = size_t{32} << 20;
constexpr unsigned long long kKernelNs = 600000;

// Sums every 64th float of its chunk, then busy-waits the rest of `ns`.
__global__ void consume(const float* chunk, size_t n, float* out, unsigned long long ns) {
  const unsigned long long start = advisor::GlobalNs();
  float sum = 0;
  for (size_t i = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) * 64; i < n;
       i += size_t(gridDim.x) * blockDim.x * 64) {
    sum += chunk[i];
  }
  while (advisor::GlobalNs() - start < ns) {
  }
  if (sum < 0) out[blockIdx.x] = sum;  // never (the chunks hold 1s): keeps the loads
}

}  // namespace

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  advisor::Preload(consume);
  const int blocks = advisor::SmCount();
  // The compute stream is created first: CUPTI numbers streams in creation order, and
  // the rule takes a context's lowest-numbered stream for its default stream.
  cudaStream_t compute, copies;
  CHECK(cudaStreamCreateWithFlags(&compute, fixed ? cudaStreamNonBlocking : cudaStreamDefault));
  CHECK(cudaStreamCreateWithFlags(&copies, cudaStreamNonBlocking));
  cudaEvent_t copied[2], consumed[2];
  for (int b = 0; b < 2; ++b) {
    CHECK(cudaEventCreateWithFlags(&copied[b], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&consumed[b], cudaEventDisableTiming));
  }
  char* host = nullptr;
  char* device[2] = {nullptr, nullptr};
  float* out = nullptr;
  CHECK(cudaMallocHost(&host, kChunk * kHostChunks));
  for (char*& d : device) CHECK(cudaMalloc(&d, kChunk));
  CHECK(cudaMalloc(&out, blocks * sizeof(float)));
  for (size_t i = 0; i < kChunk * kHostChunks / sizeof(float); ++i) {
    reinterpret_cast<float*>(host)[i] = 1.0f;
  }

  for (int i = 0; i < kChunks; ++i) {
    const int b = i % 2;
    const char* src = host + (i % kHostChunks) * kChunk;
    if (fixed) {
      if (i >= 2) CHECK(cudaStreamWaitEvent(copies, consumed[b], 0));
      CHECK(cudaMemcpyAsync(device[b], src, kChunk, cudaMemcpyHostToDevice, copies));
      CHECK(cudaEventRecord(copied[b], copies));
      CHECK(cudaStreamWaitEvent(compute, copied[b], 0));
    } else {
      CHECK(cudaMemcpyAsync(device[b], src, kChunk, cudaMemcpyHostToDevice, 0));
    }
    consume<<<blocks, 256, 0, compute>>>(reinterpret_cast<const float*>(device[b]),
                                         kChunk / sizeof(float), out, kKernelNs);
    if (fixed) CHECK(cudaEventRecord(consumed[b], compute));
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf(
      "default_stream%s: %d pinned uploads of %zu MiB, each followed by a %.1f ms kernel "
      "on the program's stream; the copies on %s\n",
      fixed ? " (fixed)" : "", kChunks, kChunk >> 20, kKernelNs / 1e6,
      fixed ? "a second stream of its own, overlapping the kernels"
            : "stream 0 (the legacy default stream)");
  for (int b = 0; b < 2; ++b) {
    CHECK(cudaEventDestroy(copied[b]));
    CHECK(cudaEventDestroy(consumed[b]));
  }
  CHECK(cudaFree(out));
  for (char* d : device) CHECK(cudaFree(d));
  CHECK(cudaFreeHost(host));
  CHECK(cudaStreamDestroy(copies));
  CHECK(cudaStreamDestroy(compute));
  return 0;
}
