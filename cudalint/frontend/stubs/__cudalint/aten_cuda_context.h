#pragma once
/* cudalint stub: what <ATen/cuda/CUDAContext.h> declares. torch/types.h and torch/extension.h do not include it: code that
 * uses these names without including the header does not build (a CL901 that names the header). */
#pragma clang system_header
#ifndef __CUDALINT_ATEN_CUDA_CONTEXT_H
#define __CUDALINT_ATEN_CUDA_CONTEXT_H
#include <__cudalint/torch.h>
#include <__cudalint/c10_cuda_stream.h>
#include <__cudalint/aten_cuda_exceptions.h>
namespace at {
namespace cuda {
cudaDeviceProp* getCurrentDeviceProperties();
cudaDeviceProp* getDeviceProperties(int64_t device);
int warp_size();
int64_t getNumGPUs();
bool is_available();
cublasHandle_t getCurrentCUDABlasHandle();
}  // namespace cuda
}  // namespace at
#endif
