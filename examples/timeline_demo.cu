// A CUDA program with the things a timeline should show: several kernels on
// several streams, copies from pageable and pinned memory, a memset, a device
// synchronization, NVTX ranges (push/pop and start/end), and a CUDA graph.
//
// It times its large kernels with CUDA events and prints them as
//   EVENT <name> <milliseconds>
// so a test can compare them with the profile's kernel durations.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale(int n, float a, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    y[i] *= a;
  }
}

// Long-running compute kernel (about a millisecond or more on an H200).
__global__ void busy(int n, int iters, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = y[i];
  for (int k = 0; k < iters; ++k) v = v * 1.0001f + 0.0001f;
  y[i] = v;
}

__global__ void tiny(float* y) {
  if (threadIdx.x == 0) y[0] += 1.0f;
}

int main(int argc, char** argv) {
  const int n = 1 << 24;  // 64 MiB of floats per array
  const size_t bytes = size_t{n} * sizeof(float);
  int device_count = 0;
  if (cudaGetDeviceCount(&device_count) != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "timeline_demo: no CUDA device\n");
    return 3;
  }

  nvtxRangePushA("setup");
  std::vector<float> pageable(n, 1.0f);
  float* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, bytes));
  for (int i = 0; i < n; ++i) pinned[i] = 2.0f;
  float *x = nullptr, *y = nullptr;
  CHECK(cudaMalloc(&x, bytes));
  CHECK(cudaMalloc(&y, bytes));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  nvtxRangePop();

  nvtxRangePushA("copies");
  CHECK(cudaMemcpy(x, pageable.data(), bytes, cudaMemcpyHostToDevice));  // pageable
  CHECK(cudaMemcpyAsync(y, pinned, bytes, cudaMemcpyHostToDevice, s1));  // pinned
  CHECK(cudaMemsetAsync(y, 0, bytes, s1));
  CHECK(cudaStreamSynchronize(s1));
  nvtxRangePop();

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  // Load the timed kernels now: with lazy loading the first launch loads its function
  // between the two events, and the event time exceeds the kernel's (busy's first
  // launch: 846 us of events around a 783 us kernel on the H200).
  cudaFuncAttributes attributes;
  CHECK(cudaFuncGetAttributes(&attributes, saxpy));
  CHECK(cudaFuncGetAttributes(&attributes, busy));

  nvtxRangePushA("compute");
  const int block = 256, grid = (n + block - 1) / block;
  for (int rep = 0; rep < 3; ++rep) {
    nvtxRangePushA("saxpy");
    CHECK(cudaEventRecord(start, s1));
    saxpy<<<grid, block, 0, s1>>>(n, 2.0f, x, y);
    CHECK(cudaEventRecord(stop, s1));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("EVENT saxpy %.6f\n", ms);
    nvtxRangePop();
  }
  for (int rep = 0; rep < 3; ++rep) {
    CHECK(cudaEventRecord(start, s2));
    busy<<<grid / 16, block, 0, s2>>>(n / 16, 20000, y);
    CHECK(cudaEventRecord(stop, s2));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("EVENT busy %.6f\n", ms);
  }
  // Two streams at once.
  scale<<<264, 256, 0, s1>>>(n, 0.5f, y);
  scale<<<264, 256, 0, s2>>>(n, 0.5f, x);
  nvtxRangePop();
  CHECK(cudaDeviceSynchronize());

  // A start/end range that crosses the graph section.
  nvtxRangeId_t graph_range = nvtxRangeStartA("graph");
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  for (int k = 0; k < 4; ++k) tiny<<<1, 32, 0, s1>>>(y);
  scale<<<264, 256, 0, s1>>>(n, 1.0f, y);
  CHECK(cudaStreamEndCapture(s1, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const int graph_launches = 5;
  for (int k = 0; k < graph_launches; ++k) CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaStreamSynchronize(s1));
  nvtxRangeEnd(graph_range);

  nvtxMarkA("done");
  CHECK(cudaMemcpy(pageable.data(), y, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyAsync(pinned, x, bytes, cudaMemcpyDeviceToHost, s2));
  CHECK(cudaStreamSynchronize(s2));

  // Kernel launches this program made, for the test to compare with records:
  // 3 saxpy + 3 busy + 2 scale + graph (4 tiny + 1 scale) * 5.
  std::printf("LAUNCHES %d\n", 3 + 3 + 2 + 5 * graph_launches);

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFreeHost(pinned));
  int exit_code = argc > 1 ? std::atoi(argv[1]) : 0;
  return exit_code;  // lets a test check that the exit code passes through
}
