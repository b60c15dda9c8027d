// What the cuBLAS examples (fp32_without_tensor_cores, misaligned_gemm) share: a cuBLAS
// call that must succeed.
#ifndef CUSCOPE_EXAMPLES_ADVISOR_CUBLAS_CHECK_H_
#define CUSCOPE_EXAMPLES_ADVISOR_CUBLAS_CHECK_H_

#include <cublas_v2.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUBLAS(call)                                                             \
  do {                                                                                 \
    cublasStatus_t s_ = (call);                                                        \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, \
                   static_cast<int>(s_));                                              \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

#endif  // CUSCOPE_EXAMPLES_ADVISOR_CUBLAS_CHECK_H_
