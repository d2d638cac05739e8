#pragma once
/* cudalint stub: what <c10/cuda/CUDAException.h> declares. torch/types.h and torch/extension.h do not include it: code that
 * uses these names without including the header does not build (a CL901 that names the header). */
#pragma clang system_header
#ifndef __CUDALINT_C10_CUDA_EXCEPTION_H
#define __CUDALINT_C10_CUDA_EXCEPTION_H
#include <__cudalint/torch.h>
namespace c10 {
namespace cuda {
void c10_cuda_check_implementation(const int32_t err, const char* filename, const char* function_name, const int line_number,
                                   const bool include_device_assertions);
}  // namespace cuda
}  // namespace c10
#define C10_CUDA_CHECK(EXPR)                                                                                   \
  do {                                                                                                         \
    const cudaError_t __err = EXPR;                                                                            \
    ::c10::cuda::c10_cuda_check_implementation(static_cast<int32_t>(__err), __FILE__, __func__, __LINE__, true); \
  } while (0)
#define C10_CUDA_CHECK_WARN(EXPR) C10_CUDA_CHECK(EXPR)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define C10_CUDA_ERROR_HANDLED(EXPR) EXPR
#endif
