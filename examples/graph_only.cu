// Kernels that run only inside a CUDA graph (tests/gpu/gpu_test.cc,
// GraphOnlyKernelsGetSampledVerdicts; bench/device/graph_verdicts.sh): a graph of three
// kernels, captured without running any of them first, then launched for SECONDS:
//   stream_copy: copies 256 MiB (DRAM-bound),
//   fma_chains:  4 independent FMA chains a thread on every SM (compute: issue),
//   lonely_walk: one warp's dependent chain (latency-bound: a small grid).
// Each runs a few hundred microseconds, long enough to hold whole GPU metrics samples.
//
//   graph_only [SECONDS=3]
// Prints "GRAPH LAUNCHES n" and exits 0.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void stream_copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i];
  }
}

__global__ void fma_chains(float* out, int iterations) {
  float a = threadIdx.x * 1e-3f, b = a + 1, c = a + 2, d = a + 3;
  const float x = 0.9999f, y = 1e-4f;
  for (int i = 0; i < iterations; ++i) {
    a = fmaf(a, x, y);
    b = fmaf(b, x, y);
    c = fmaf(c, x, y);
    d = fmaf(d, x, y);
  }
  if (a + b + c + d == 12345.0f) out[threadIdx.x] = a;  // keeps the chains
}

__global__ void lonely_walk(float* out, int iterations) {
  float a = threadIdx.x;
  for (int i = 0; i < iterations; ++i) a = sqrtf(a * a + 1.0f) - 0.5f;
  out[threadIdx.x] = a;
}

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t n = (size_t(256) << 20) / sizeof(float4);
  float4 *in = nullptr, *out = nullptr;
  float* sink = nullptr;
  CHECK(cudaMalloc(&in, n * sizeof(float4)));
  CHECK(cudaMalloc(&out, n * sizeof(float4)));
  CHECK(cudaMalloc(&sink, 1024 * sizeof(float)));
  CHECK(cudaMemset(in, 0, n * sizeof(float4)));

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  stream_copy<<<sms * 8, 256, 0, s>>>(in, out, n);
  fma_chains<<<sms * 8, 256, 0, s>>>(sink, 16384);
  lonely_walk<<<1, 32, 0, s>>>(sink, 20000);
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));

  int launches = 0;
  const auto start = std::chrono::steady_clock::now();
  do {
    for (int k = 0; k < 10; ++k, ++launches) CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
  } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
           seconds);
  std::printf("GRAPH LAUNCHES %d\n", launches);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(sink));
  return 0;
}
