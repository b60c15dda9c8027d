// Faults in a profiled program, for the GPU fault tests (tests/gpu/fault_test.cc).
//
//   fault_demo loop MS [exit|kill|segv]
//     Launches a 1-block kernel in batches of 20 (a device synchronization and a
//     1 ms pause after each) for MS milliseconds, prints "STARTED" after the first
//     batch and "LAUNCHES <n>" at the end, then: exit returns 0; kill sends itself
//     SIGKILL; segv writes to a page mapped PROT_NONE (a real SIGSEGV, no core file).
//   fault_demo threads T ITERS PER_ITER
//     T threads, started together, each on its own stream: ITERS times, a
//     CUSCOPE_SCOPE("fault_scope") holding an NVTX range "fault_nvtx" holding PER_ITER launches.
//     Prints "LAUNCHES <n> SCOPES <s> NVTX <r>".
//
// Links libcuscope (CUSCOPE_SCOPE); profiled by injection or `cuscope run`.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "cuscope/scope.h"

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t err_ = (call);                                                           \
    if (err_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(3);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void tick(float* y) {
  if (threadIdx.x == 0) y[blockIdx.x] += 1.0f;
}

// A SIGSEGV from a real invalid access: a write to a page with no access rights.
void CrashWithSegv() {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // no core file to write (it can take seconds)
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) std::raise(SIGSEGV);
  *static_cast<volatile int*>(page) = 1;
  std::raise(SIGSEGV);  // not reached
}

int Loop(long ms, const char* end) {
  float* y = nullptr;
  CHECK(cudaMalloc(&y, 1024));
  CHECK(cudaMemset(y, 0, 1024));
  const int kBatch = 20;
  long launches = 0;
  auto batch = [&] {
    for (int i = 0; i < kBatch; ++i) tick<<<1, 32>>>(y);
    launches += kBatch;
    CHECK(cudaDeviceSynchronize());
  };
  batch();
  std::printf("STARTED\n");
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(ms)) {
    batch();
    usleep(1000);
  }
  std::printf("LAUNCHES %ld\n", launches);
  std::fflush(stdout);
  if (std::strcmp(end, "kill") == 0) std::raise(SIGKILL);
  if (std::strcmp(end, "segv") == 0) CrashWithSegv();
  CHECK(cudaFree(y));
  return 0;
}

int Threads(int threads, int iters, int per_iter) {
  CHECK(cudaFree(nullptr));  // CUDA starts here (and cuscope, when injected)
  float* y = nullptr;
  CHECK(cudaMalloc(&y, sizeof(float) * 32 * threads));
  CHECK(cudaMemset(y, 0, sizeof(float) * 32 * threads));
  std::atomic<long> launches{0}, scopes{0}, ranges{0};
  std::atomic<int> ready{0};
  // CUPTI's thread ids (its default kind) are pthread_self() cut to 32 bits: distinct
  // threads can share one. The test expects as many as the program had.
  std::mutex ids_mu;
  std::set<uint32_t> ids;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      cudaStream_t stream;
      CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      // All threads start together (and all are alive at once: distinct thread ids).
      {
        std::lock_guard<std::mutex> lock(ids_mu);
        ids.insert(static_cast<uint32_t>(pthread_self()));
      }
      ++ready;
      while (ready.load() < threads) std::this_thread::yield();
      for (int i = 0; i < iters; ++i) {
        CUSCOPE_SCOPE("fault_scope");
        ++scopes;
        nvtxRangePushA("fault_nvtx");
        ++ranges;
        for (int j = 0; j < per_iter; ++j) tick<<<1, 32, 0, stream>>>(y + 32 * t);
        launches += per_iter;
        nvtxRangePop();
      }
      CHECK(cudaStreamSynchronize(stream));
      CHECK(cudaStreamDestroy(stream));
    });
  }
  for (auto& th : pool) th.join();
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(y));
  std::printf("LAUNCHES %ld SCOPES %ld NVTX %ld THREADIDS %zu\n", launches.load(), scopes.load(),
              ranges.load(), ids.size());
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "loop") == 0 && argc > 2) {
    return Loop(std::atol(argv[2]), argc > 3 ? argv[3] : "exit");
  }
  if (std::strcmp(mode, "threads") == 0 && argc > 4) {
    return Threads(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  }
  std::fprintf(stderr,
               "usage: fault_demo loop MS [exit|kill|segv]\n"
               "       fault_demo threads T ITERS PER_ITER\n");
  return 2;
}
