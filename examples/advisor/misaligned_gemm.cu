// misaligned_gemm: a language model's output layer in BF16 with cuBLAS, logits =
// hidden x W^T for 4096 tokens, a hidden size of 768 and GPT-2's vocabulary of 50,257
// words: the logits' leading dimension (50,257 elements) is not a multiple of 16 bytes,
// and cuBLAS takes a kernel for 2-byte aligned operands (on the H200 inside PyTorch:
// cutlass_75_tensorop_bf16_s1688gemm_..._align1, 10-15% of the BF16 tensor roof).
// Fixed: the vocabulary padded to 50,304 (a multiple of 64), as nanoGPT does; the 47
// extra words' logits are computed and ignored.
//
// The first GEMM is a warm-up that is part of both runs: cuBLAS loads its kernels inside
// it, before the GPU has done anything (as fp32_without_tensor_cores.cu).
#include <cuda_bf16.h>

#include "common.h"
#include "cublas_check.h"

__global__ void fill_bf16(__nv_bfloat16* x, size_t n, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    x[i] = __float2bfloat16(scale * static_cast<float>((i * 2654435761u) % 1024) / 1024.0f);
  }
}

int main(int argc, char** argv) {
  const bool fixed = advisor::FixedVariant(argc, argv);
  constexpr int kTokens = 4096, kHidden = 768, kGemms = 10;
  const int vocab = fixed ? 50304 : 50257;
  advisor::Preload(fill_bf16);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  __nv_bfloat16 *w = nullptr, *h = nullptr, *logits = nullptr;
  __nv_bfloat16* h_out = nullptr;
  const size_t w_count = size_t(vocab) * kHidden, h_count = size_t(kTokens) * kHidden;
  CHECK(cudaMalloc(&w, w_count * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&h, h_count * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&logits, size_t(vocab) * kTokens * sizeof(__nv_bfloat16)));
  CHECK(cudaMallocHost(&h_out, sizeof(__nv_bfloat16)));
  const float one = 1.0f, zero = 0.0f;
  // Column-major: W is kHidden x vocab (W^T of the row-major vocab x hidden weight),
  // the hidden states kHidden x kTokens, the logits vocab x kTokens (leading dimension
  // vocab, what PyTorch's row-major tokens x vocab logits are).
  auto gemm = [&] {
    CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, vocab, kTokens, kHidden, &one, w,
                              CUDA_R_16BF, kHidden, h, CUDA_R_16BF, kHidden, &zero, logits,
                              CUDA_R_16BF, vocab, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };

  gemm();  // warm-up: loads cuBLAS's kernels
  fill_bf16<<<1024, 256>>>(w, w_count, 0.02f);
  fill_bf16<<<1024, 256>>>(h, h_count, 1.0f);
  for (int i = 0; i < kGemms; ++i) gemm();
  CHECK(cudaMemcpy(h_out, logits + 12345, sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  std::printf(
      "misaligned_gemm%s: 1 + %d BF16 GEMMs of %d tokens x %d hidden x %d vocabulary; logit "
      "12345 = %.3f\n",
      fixed ? " (fixed)" : "", kGemms, kTokens, kHidden, vocab, __bfloat162float(*h_out));
  CHECK_CUBLAS(cublasDestroy(handle));
  CHECK(cudaFreeHost(h_out));
  CHECK(cudaFree(logits));
  CHECK(cudaFree(h));
  CHECK(cudaFree(w));
  return 0;
}
