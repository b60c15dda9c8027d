// Launches kernels, forks a child that exits on its own (running atexit handlers),
// then launches more. Under cuscope the parent's profile must hold every parent
// launch, and the child must neither hang nor touch the parent's profile.
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

__global__ void step(float* y) { y[threadIdx.x] += 1.0f; }

int main() {
  float* y = nullptr;
  if (cudaMalloc(&y, 4096) != cudaSuccess) return 3;
  for (int i = 0; i < 10; ++i) step<<<1, 32>>>(y);
  cudaDeviceSynchronize();
  pid_t child = fork();
  if (child == 0) {
    std::printf("child exiting\n");
    std::exit(0);  // runs atexit handlers in the child
  }
  int status = 0;
  waitpid(child, &status, 0);
  for (int i = 0; i < 10; ++i) step<<<1, 32>>>(y);
  cudaDeviceSynchronize();
  std::printf("LAUNCHES 20 child_status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  cudaFree(y);
  return 0;
}
