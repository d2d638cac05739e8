#pragma once
/* cudalint stub: what <c10/cuda/CUDAFunctions.h> declares. torch/types.h and torch/extension.h do not include it: code that
 * uses these names without including the header does not build (a CL901 that names the header). */
#pragma clang system_header
#ifndef __CUDALINT_C10_CUDA_FUNCTIONS_H
#define __CUDALINT_C10_CUDA_FUNCTIONS_H
#include <__cudalint/torch.h>
#include <__cudalint/c10_cuda_exception.h>
namespace c10 {
namespace cuda {
DeviceIndex device_count() noexcept;
DeviceIndex current_device();
void set_device(DeviceIndex device);
void device_synchronize();
}  // namespace cuda
}  // namespace c10
#endif
