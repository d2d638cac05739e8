#pragma once
/* cudalint stub: what <c10/cuda/CUDAGuard.h> declares. torch/types.h and torch/extension.h do not include it: code that
 * uses these names without including the header does not build (a CL901 that names the header). */
#pragma clang system_header
#ifndef __CUDALINT_C10_CUDA_GUARD_H
#define __CUDALINT_C10_CUDA_GUARD_H
#include <__cudalint/torch.h>
#include <__cudalint/c10_cuda_allocator.h>
namespace c10 {
namespace cuda {
struct CUDAGuard {
  explicit CUDAGuard(DeviceIndex device_index);
  explicit CUDAGuard(Device device);
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  void set_device(Device device);
  void reset_device(Device device);
  void set_index(DeviceIndex device_index);
  Device original_device() const;
  Device current_device() const;
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  explicit OptionalCUDAGuard(optional<Device> device_opt);
  explicit OptionalCUDAGuard(optional<DeviceIndex> device_index_opt);
  OptionalCUDAGuard(const OptionalCUDAGuard&) = delete;
  OptionalCUDAGuard& operator=(const OptionalCUDAGuard&) = delete;
  void set_device(Device device);
  void set_index(DeviceIndex device_index);
  void reset();
  optional<Device> original_device() const;
  optional<Device> current_device() const;
};
struct CUDAStreamGuard {
  explicit CUDAStreamGuard(CUDAStream stream);
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  void reset_stream(CUDAStream stream);
  CUDAStream original_stream() const;
  CUDAStream current_stream() const;
};
}  // namespace cuda
}  // namespace c10
#endif
