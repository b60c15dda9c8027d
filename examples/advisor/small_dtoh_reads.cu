// small_dtoh_reads: 200 training-like steps, each launching a 300 us kernel that
// writes a 4-byte "loss", reading that loss back with cudaMemcpy (what .item() does)
// and then inspecting it on the host for 100 us (a busy-wait standing for logging and
// a Python branch on the value). Each read waits for the step's kernel, and the GPU
// then idles until the host has looked at the value and launched the next step.
// Fixed: each loss goes to a pinned host slot with cudaMemcpyAsync, and the host
// inspects it 4 steps later, after an event says it has arrived: the same values read
// and inspected, while the GPU keeps 3 steps queued.
#include "common.h"

namespace {

constexpr int kSteps = 200, kLag = 4;
constexpr double kInspectUs = 100;
constexpr unsigned long long kKernelNs = 300000;

__global__ void train_step(float* losses, int step, unsigned long long ns) {
  const unsigned long long start = advisor::GlobalNs();
  while (advisor::GlobalNs() - start < ns) {
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) losses[step] = 1.0f / (1.0f + step);
}

double Inspect(float loss) {
  advisor::SpinHostUs(kInspectUs);
  return loss;
}

}  // namespace

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  advisor::Preload(train_step);
  const int blocks = advisor::SmCount();
  float *d_losses = nullptr, *h_losses = nullptr;
  CHECK(cudaMalloc(&d_losses, kSteps * sizeof(float)));
  CHECK(cudaMallocHost(&h_losses, kSteps * sizeof(float)));
  cudaEvent_t arrived[kLag];
  for (cudaEvent_t& e : arrived) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

  double sum = 0;
  for (int step = 0; step < kSteps; ++step) {
    train_step<<<blocks, 128>>>(d_losses, step, kKernelNs);
    if (!fixed) {
      CHECK(cudaMemcpy(&h_losses[step], &d_losses[step], sizeof(float), cudaMemcpyDeviceToHost));
      sum += Inspect(h_losses[step]);
      continue;
    }
    CHECK(cudaMemcpyAsync(&h_losses[step], &d_losses[step], sizeof(float), cudaMemcpyDeviceToHost,
                          0));
    CHECK(cudaEventRecord(arrived[step % kLag], 0));
    if (step >= kLag - 1) {  // the loss of kLag - 1 steps ago
      const int old = step - (kLag - 1);
      CHECK(cudaEventSynchronize(arrived[old % kLag]));
      sum += Inspect(h_losses[old]);
    }
  }
  CHECK(cudaDeviceSynchronize());
  for (int old = fixed ? kSteps - (kLag - 1) : kSteps; old < kSteps; ++old) {
    sum += Inspect(h_losses[old]);
  }
  std::printf(
      "small_dtoh_reads%s: %d steps of a %.0f us kernel, each 4-byte loss read and "
      "inspected (%.0f us) %s; sum of losses %.4f\n",
      fixed ? " (fixed)" : "", kSteps, kKernelNs / 1e3, kInspectUs,
      fixed ? "3 steps later, copied with cudaMemcpyAsync to pinned memory"
            : "at once, with cudaMemcpy",
      sum);
  for (cudaEvent_t& e : arrived) CHECK(cudaEventDestroy(e));
  CHECK(cudaFreeHost(h_losses));
  CHECK(cudaFree(d_losses));
  return 0;
}
