#pragma once
/* cudalint stub: <ATen/cuda/Atomic.cuh> */
#pragma clang system_header
#include <__cudalint/torch.h>
#ifndef __CUDALINT_ATEN_CUDA_ATOMIC_CUH
#define __CUDALINT_ATEN_CUDA_ATOMIC_CUH
template <class T> __device__ T gpuAtomicAdd(T* address, T val);
template <class T> __device__ void gpuAtomicAddNoReturn(T* address, T val);
template <class T> __device__ T gpuAtomicMax(T* address, T val);
template <class T> __device__ T gpuAtomicMin(T* address, T val);
template <class T> __device__ T gpuAtomicMul(T* address, T val);
namespace at { namespace native {
template <class scalar_t, class index_t>
__device__ void fastAtomicAdd(scalar_t* tensor, index_t index, const index_t numel, scalar_t value, bool fast_atomics);
}}
#endif
