// gpu_idle_gaps: 40 steps, each preparing a batch on the host (1.5 ms: a busy-wait
// standing for data loading and preprocessing) and then launching its GPU work
// (0.5 ms). The CPU never waits for the GPU, but it takes 3x longer per step, so the
// GPU idles about 1 ms in every step.
// Fixed: 4 worker threads prepare the batches ahead of the GPU (a DataLoader with
// workers, here all of them before the first launch): the same batches and the same
// kernels, queued back to back, so the GPU never waits for the host.
#include <future>
#include <vector>

#include "common.h"

namespace {

constexpr int kSteps = 40, kWorkers = 4;
constexpr double kPrepareUs = 1500;
constexpr unsigned long long kKernelNs = 500000;

float Prepare(int step) {
  advisor::SpinHostUs(kPrepareUs);
  return 1.0f + static_cast<float>(step % 3);
}

}  // namespace

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  advisor::Preload(advisor::timed_work);
  const int blocks = advisor::SmCount();
  float *out = nullptr, *h_out = nullptr;
  CHECK(cudaMalloc(&out, blocks * sizeof(float)));
  CHECK(cudaMallocHost(&h_out, sizeof(float)));

  std::vector<float> batches(kSteps);
  if (fixed) {
    std::vector<std::future<void>> workers;
    for (int w = 0; w < kWorkers; ++w) {
      workers.push_back(std::async(std::launch::async, [w, &batches] {
        for (int step = w; step < kSteps; step += kWorkers) batches[step] = Prepare(step);
      }));
    }
    for (auto& worker : workers) worker.get();
  }
  for (int step = 0; step < kSteps; ++step) {
    const float batch = fixed ? batches[step] : Prepare(step);
    // The first launch also clears out[]: the GPU's first operation comes after the
    // first batch is ready.
    if (step == 0) CHECK(cudaMemsetAsync(out, 0, blocks * sizeof(float), 0));
    advisor::timed_work<<<blocks, 128>>>(out, batch, kKernelNs);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_out, out, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf(
      "gpu_idle_gaps%s: %d steps of %.1f ms of host preparation and a %.1f ms kernel, "
      "prepared %s; out[0] = %.0f\n",
      fixed ? " (fixed)" : "", kSteps, kPrepareUs / 1e3, kKernelNs / 1e6,
      fixed ? "ahead by 4 worker threads" : "by the launching thread", *h_out);
  CHECK(cudaFreeHost(h_out));
  CHECK(cudaFree(out));
  return 0;
}
