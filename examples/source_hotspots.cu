// Known source hotspots for `cuscope run --source` (tests/gpu/source_test.cc), built
// with -lineinfo:
//   - mixed_kernel: one line of uncoalesced, dependent global loads (the line marked
//     HOT_MEMORY: long scoreboard) and one line of a long dependent FMA chain (HOT_MATH:
//     math pipe / fixed-latency waits); the memory line takes most of the samples;
//   - a cuBLAS SGEMM (a library kernel: sampled by function, no lines);
//   - graph_kernel, launched only from a CUDA graph;
//   - stream_kernel_a / stream_kernel_b, launched on two streams at once.
// Prints "LAUNCHES n": the kernels it launched (cuBLAS's counted as one per call).
//
//   source_hotspots [repeats]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                   \
  do {                                                             \
    cudaError_t e = (x);                                           \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      std::exit(1);                                                \
    }                                                              \
  } while (0)

constexpr int kN = 1 << 22;    // floats in each buffer
constexpr int kStride = 4099;  // a large odd stride: every load of a warp a new sector
constexpr int kLoads = 64;     // dependent loads per thread on the memory line
constexpr int kFmas = 2048;    // dependent FMAs per thread on the math line

__global__ void mixed_kernel(const float* __restrict__ in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned idx = static_cast<unsigned>(i) * kStride;
  float acc = 0.f;
  for (int k = 0; k < kLoads; ++k) {
    acc += in[(idx = idx * 1664525u + static_cast<unsigned>(acc)) % n];  // HOT_MEMORY
  }
  float x = acc, y = 1.0001f, z = 0.999f;
  for (int k = 0; k < kFmas; ++k) {
    x = fmaf(fmaf(x, y, z), y, -z);  // HOT_MATH
  }
  if (i < n) out[i] = x + y;
}

__global__ void graph_kernel(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? data[i] : 0.f;
  for (int k = 0; k < 512; ++k) v = fmaf(v, 1.0001f, 0.5f);  // GRAPH_LINE
  if (i < n) data[i] = v;
}

__global__ void stream_kernel_a(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? data[i] : 0.f;
  for (int k = 0; k < 1024; ++k) v = fmaf(v, 0.9999f, 0.25f);  // STREAM_A_LINE
  if (i < n) data[i] = v;
}

__global__ void stream_kernel_b(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? data[i] : 0.f;
  for (int k = 0; k < 1024; ++k) v = fmaf(v, 1.0002f, -0.25f);  // STREAM_B_LINE
  if (i < n) data[i] = v;
}

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  float *in, *out, *a, *b;
  CHECK(cudaMalloc(&in, kN * sizeof(float)));
  CHECK(cudaMalloc(&out, kN * sizeof(float)));
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaMemset(in, 0, kN * sizeof(float)));
  CHECK(cudaMemset(a, 0, kN * sizeof(float)));
  CHECK(cudaMemset(b, 0, kN * sizeof(float)));
  int launches = 0;
  const int threads = 256, blocks = kN / threads;

  for (int r = 0; r < repeats; ++r, ++launches) mixed_kernel<<<blocks, threads>>>(in, out, kN);

  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  const int m = 2048;  // a and b hold 4M floats: 2048 x 2048 matrices
  const float one = 1.f, zero = 0.f;
  for (int r = 0; r < repeats; ++r, ++launches) {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, a, m, b, m, &zero, out, m);
  }
  CHECK(cudaDeviceSynchronize());
  cublasDestroy(handle);

  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < 4; ++k) graph_kernel<<<blocks, threads, 0, s1>>>(a, kN);
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < repeats; ++r, launches += 4) CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaStreamSynchronize(s1));

  for (int r = 0; r < repeats; ++r, launches += 2) {
    stream_kernel_a<<<blocks / 8, threads, 0, s1>>>(a, kN / 8);
    stream_kernel_b<<<blocks / 8, threads, 0, s2>>>(b, kN / 8);
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaGetLastError());
  std::printf("LAUNCHES %d\n", launches);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 0;
}
