// A C++ application that links cuscope: it starts a session from code (or joins the
// injected one: linking and injecting give one profiler), marks regions with
// CUSCOPE_SCOPE, and stops the session.
//   scopes_demo [profile.sqlite] [steps=3]
// Each step: "init" fills 2^20 floats, "compute" scales them 4 times (4 x 2^20 FP32
// multiplies: the exact count region counters must find).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuscope/cuscope.h"

__global__ void fill(float* y, float v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = v;
}

__global__ void scale(float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] *= a;
}

int main(int argc, char** argv) {
  std::string output = argc > 1 ? argv[1] : "scopes_demo.sqlite";
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  std::string error;
  bool own = cuscope::Session::Start(cuscope::Options().Set("CUSCOPE_OUTPUT", output), &error);
  if (!own) {
    // Already injected (CUDA_INJECTION64_PATH): the injected session records.
    std::printf("session: %s\n",
                cuscope::Session::Active() ? "joined the running one" : error.c_str());
  }
  const int n = 1 << 20;
  float* y = nullptr;
  cudaMalloc(&y, n * sizeof(float));
  for (int step = 0; step < steps; ++step) {
    CUSCOPE_SCOPE("step");
    {
      CUSCOPE_SCOPE("init");
      fill<<<n / 256, 256>>>(y, 1.0f, n);
    }
    {
      CUSCOPE_SCOPE("compute");
      for (int k = 0; k < 4; ++k) scale<<<n / 256, 256>>>(y, 1.5f, n);
    }
    cudaDeviceSynchronize();
  }
  cudaFree(y);
  if (own) cuscope::Session::Stop();
  std::printf("profile: %s\n", cuscope::Session::OutputPath().c_str());
  return 0;
}
