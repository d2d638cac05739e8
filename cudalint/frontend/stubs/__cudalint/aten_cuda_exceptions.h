#pragma once
/* cudalint stub: what <ATen/cuda/Exceptions.h> declares. torch/types.h and torch/extension.h do not include it: code that
 * uses these names without including the header does not build (a CL901 that names the header). */
#pragma clang system_header
#ifndef __CUDALINT_ATEN_CUDA_EXCEPTIONS_H
#define __CUDALINT_ATEN_CUDA_EXCEPTIONS_H
#include <__cudalint/torch.h>
#include <__cudalint/c10_cuda_exception.h>
#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
#define TORCH_CUDABLAS_CHECK(EXPR) do { cublasStatus_t __err = EXPR; (void)__err; } while (0)
#endif
