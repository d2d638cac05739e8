#pragma once
/* cudalint stub: what <c10/cuda/CUDAStream.h> declares. torch/types.h and torch/extension.h do not include it: code that
 * uses these names without including the header does not build (a CL901 that names the header). */
#pragma clang system_header
#ifndef __CUDALINT_C10_CUDA_STREAM_H
#define __CUDALINT_C10_CUDA_STREAM_H
#include <__cudalint/torch.h>
#include <__cudalint/c10_cuda_functions.h>
namespace c10 {
namespace cuda {
class CUDAStream {
 public:
  CUDAStream() = delete;
  operator cudaStream_t() const;
  cudaStream_t stream() const;
  DeviceIndex device_index() const;
  Device device() const;
  DeviceType device_type() const;
  StreamId id() const;
  bool query() const;
  void synchronize() const;
  int priority() const;
  bool operator==(const CUDAStream& other) const noexcept;
  bool operator!=(const CUDAStream& other) const noexcept;
};
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
CUDAStream getStreamFromPool(const bool isHighPriority = false, DeviceIndex device = -1);
CUDAStream getStreamFromPool(const int priority, DeviceIndex device = -1);
CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index);
void setCurrentCUDAStream(CUDAStream stream);
}  // namespace cuda
}  // namespace c10
#endif
