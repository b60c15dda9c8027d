// low_gpu_utilization: 3000 steps, each recomputing its launch parameters on the host
// (60 us: a busy-wait standing for loop-invariant host work, e.g. Python rebuilding the
// same arguments) and launching a 15 us kernel. Every gap is short (about 45 us, under
// the 100 us of a long gap), but the GPU is busy only about a quarter of the time.
// Fixed: the parameters are computed once, before the loop; the same 3000 kernels go
// out back to back.
#include "common.h"

namespace {

constexpr int kSteps = 3000;
constexpr double kHostUs = 60;
constexpr unsigned long long kKernelNs = 15000;

float Parameters() {
  advisor::SpinHostUs(kHostUs);
  return 1.0f;
}

}  // namespace

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  advisor::Preload(advisor::timed_work);
  const int blocks = advisor::SmCount();
  float *out = nullptr, *h_out = nullptr;
  CHECK(cudaMalloc(&out, blocks * sizeof(float)));
  CHECK(cudaMallocHost(&h_out, sizeof(float)));

  const float once = fixed ? Parameters() : 0.0f;
  CHECK(cudaMemsetAsync(out, 0, blocks * sizeof(float), 0));
  for (int step = 0; step < kSteps; ++step) {
    const float value = fixed ? once : Parameters();
    advisor::timed_work<<<blocks, 128>>>(out, value, kKernelNs);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out, out, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf(
      "low_gpu_utilization%s: %d steps of a %.0f us kernel, the launch parameters "
      "(%.0f us of host work) computed %s; out[0] = %.0f\n",
      fixed ? " (fixed)" : "", kSteps, kKernelNs / 1e3, kHostUs,
      fixed ? "once before the loop" : "again in every step", *h_out);
  CHECK(cudaFreeHost(h_out));
  CHECK(cudaFree(out));
  return 0;
}
