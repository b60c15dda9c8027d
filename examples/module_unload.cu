// A module unloaded mid-run (cuscope run --source; tests/gpu/source_test.cc): loads
// CUBIN (examples/module_unload_kernel.cu, built with -lineinfo) with the driver API,
// launches its busy_kernel LAUNCHES times, unloads it, and does it all ROUNDS times, so
// that PC samples of a module arrive after the module is gone. Prints "LAUNCHES n".
//
//   module_unload CUBIN [rounds=3] [launches=20]
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_DRV(x)                                     \
  do {                                                   \
    CUresult r = (x);                                    \
    if (r != CUDA_SUCCESS) {                             \
      const char* s = nullptr;                           \
      cuGetErrorString(r, &s);                           \
      std::fprintf(stderr, "%s: %s\n", #x, s ? s : "?"); \
      std::exit(1);                                      \
    }                                                    \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: module_unload CUBIN [rounds] [launches]\n");
    return 2;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  const int launches = argc > 3 ? std::atoi(argv[3]) : 20;
  if (cudaFree(nullptr) != cudaSuccess) {  // the primary context, current on this thread
    std::fprintf(stderr, "no CUDA device\n");
    return 1;
  }
  constexpr int kThreads = 256, kBlocks = 1024;
  float* out = nullptr;
  if (cudaMalloc(&out, sizeof(float) * kThreads * kBlocks) != cudaSuccess) return 1;
  int iterations = 1 << 16;
  int launched = 0;
  for (int r = 0; r < rounds; ++r) {
    CUmodule module;
    CUfunction fn;
    CHECK_DRV(cuModuleLoad(&module, argv[1]));
    CHECK_DRV(cuModuleGetFunction(&fn, module, "busy_kernel"));
    void* args[] = {&out, &iterations};
    for (int i = 0; i < launches; ++i) {
      CHECK_DRV(cuLaunchKernel(fn, kBlocks, 1, 1, kThreads, 1, 1, 0, nullptr, args, nullptr));
      ++launched;
    }
    CHECK_DRV(cuCtxSynchronize());
    CHECK_DRV(cuModuleUnload(module));
  }
  cudaFree(out);
  std::printf("LAUNCHES %d\n", launched);
  return 0;
}
