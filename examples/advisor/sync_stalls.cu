// sync_stalls: 200 steps, each launching a 300 us kernel, waiting for it with
// cudaDeviceSynchronize, then doing 100 us of host work (a busy-wait standing for
// bookkeeping that does not need the GPU's result). After every wait the GPU sits idle
// until the host has done its work and launched the next step.
// Fixed: no wait inside the loop (one cudaDeviceSynchronize at the end): the host work
// overlaps the queued kernels.
#include "common.h"

namespace {

constexpr int kSteps = 200;
constexpr double kHostUs = 100;
constexpr unsigned long long kKernelNs = 300000;

}  // namespace

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  advisor::Preload(advisor::timed_work);
  const int blocks = advisor::SmCount();
  float* out = nullptr;
  CHECK(cudaMalloc(&out, blocks * sizeof(float)));

  CHECK(cudaMemsetAsync(out, 0, blocks * sizeof(float), 0));
  for (int step = 0; step < kSteps; ++step) {
    advisor::timed_work<<<blocks, 128>>>(out, 1.0f, kKernelNs);
    if (!fixed) CHECK(cudaDeviceSynchronize());
    advisor::SpinHostUs(kHostUs);
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("sync_stalls%s: %d steps of a %.0f us kernel and %.0f us of host work, %s\n",
              fixed ? " (fixed)" : "", kSteps, kKernelNs / 1e3, kHostUs,
              fixed ? "one cudaDeviceSynchronize at the end" : "cudaDeviceSynchronize every step");
  CHECK(cudaFree(out));
  return 0;
}
