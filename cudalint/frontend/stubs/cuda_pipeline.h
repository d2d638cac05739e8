#pragma once
/* cudalint stub: <cuda_pipeline.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_CUDA_PIPELINE_H
#define __CUDALINT_CUDA_PIPELINE_H
#include <cuda_pipeline_primitives.h>
#include <cuda_awbarrier.h>
namespace nvcuda {
namespace experimental {
class pipeline {
 public:
  __device__ pipeline();
  __device__ unsigned int commit();
  __device__ void commit_and_wait();
  __device__ void wait(unsigned int batch);
  template <unsigned int N> __device__ void wait_prior();
};
template <class T> __device__ void memcpy_async(T& dst_shared, const T& src_global, pipeline& pipe);
template <class T, unsigned long long DstN, unsigned long long SrcN>
__device__ void memcpy_async(T (*dst_shared)[DstN], unsigned long long dst_idx, const T (*src_global)[SrcN],
                             unsigned long long src_idx, pipeline& pipe);
}  // namespace experimental
}  // namespace nvcuda
#endif
