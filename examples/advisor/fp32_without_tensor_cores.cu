// fp32_without_tensor_cores: 3 float32 GEMMs of 8192x8192 matrices with cuBLAS in its
// default math mode: FP32 FMAs on the CUDA cores, no tensor-core operation.
// Fixed: the same GEMMs with CUBLAS_TF32_TENSOR_OP_MATH (TF32 tensor cores, FP32
// accumulation), what torch.backends.cuda.matmul.allow_tf32 = True selects.
//
// The first GEMM (on uninitialised matrices) is a warm-up that is part of both runs:
// cuBLAS loads its kernels inside that first call, before the GPU has done anything,
// so module loading opens no GPU idle gap; counters measure it (one launch per kernel
// signature) like any other.

#include "common.h"
#include "cublas_check.h"

__global__ void fill_matrix(float* x, size_t n, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    x[i] = scale * static_cast<float>((i * 2654435761u) % 1024) / 1024.0f;
  }
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr int n = 8192, kGemms = 3;
  constexpr size_t count = size_t(n) * n;
  advisor::Preload(fill_matrix);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetMathMode(handle, fixed ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  float *a = nullptr, *b = nullptr, *c = nullptr, *h_c = nullptr;
  CHECK(cudaMalloc(&a, count * sizeof(float)));
  CHECK(cudaMalloc(&b, count * sizeof(float)));
  CHECK(cudaMalloc(&c, count * sizeof(float)));
  CHECK(cudaMallocHost(&h_c, sizeof(float)));
  const float one = 1.0f, zero = 0.0f;
  auto gemm = [&] {
    CHECK_CUBLAS(
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
  };

  gemm();  // warm-up: loads cuBLAS's kernels
  fill_matrix<<<1024, 256>>>(a, count, 1.0f);
  fill_matrix<<<1024, 256>>>(b, count, 0.5f);
  for (int i = 0; i < kGemms; ++i) gemm();
  CHECK(cudaMemcpy(h_c, c + 12345, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("fp32_without_tensor_cores%s: 1 + %d cublasSgemm of %dx%d in %s; c[12345] = %.3f\n",
              fixed ? " (fixed)" : "", kGemms, n, n,
              fixed ? "TF32 tensor-op math" : "the default (FP32 CUDA-core) math", *h_c);
  CHECK_CUBLAS(cublasDestroy(handle));
  CHECK(cudaFreeHost(h_c));
  CHECK(cudaFree(c));
  CHECK(cudaFree(b));
  CHECK(cudaFree(a));
  return 0;
}
