// fp64_in_fp32_program: evaluates a polynomial on 64M floats, 10 times. The first half
// of the polynomial is written with float literals (1.5f), the second half with
// double ones (0.5): C++ promotes those operations, and the conversions around them,
// to double precision on the FP64 pipe.
// Fixed: every literal a float (0.5f): the same polynomial in FP32.
#include "common.h"

template <typename Literal>
__global__ void poly(const float* x, float* y, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float p = v * 1.5f + 0.25f;
  p = p * v + 0.125f;
  p = p * v + 2.0f;
  p = p * v + 1.0f;
  // With Literal = double, p and v are promoted: three DFMAs and the conversions.
  y[i] = static_cast<float>(((p * Literal(0.5) + Literal(0.25)) * v + Literal(0.125)) * v +
                            Literal(1.0));
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr size_t n = size_t{1} << 26;
  constexpr int kThreads = 256, kLaunches = 10;
  auto* kernel = fixed ? poly<float> : poly<double>;
  advisor::Preload(kernel);
  advisor::Preload(advisor::fill_ramp);
  float *x = nullptr, *y = nullptr, *h_y = nullptr;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMallocHost(&h_y, sizeof(float)));

  advisor::fill_ramp<<<1024, 256>>>(x, n);
  const unsigned grid = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  for (int i = 0; i < kLaunches; ++i) kernel<<<grid, kThreads>>>(x, y, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h_y, y + 777, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf(
      "fp64_in_fp32_program%s: %d evaluations of a degree-7 polynomial on %zu floats, "
      "the last 3 steps with %s literals; y[777] = %.6f\n",
      fixed ? " (fixed)" : "", kLaunches, n, fixed ? "float" : "double", *h_y);
  CHECK(cudaFreeHost(h_y));
  CHECK(cudaFree(y));
  CHECK(cudaFree(x));
  return 0;
}
