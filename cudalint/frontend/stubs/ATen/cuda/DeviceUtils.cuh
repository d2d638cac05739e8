#pragma once
/* cudalint stub: <ATen/cuda/DeviceUtils.cuh> */
#pragma clang system_header
#include <__cudalint/torch.h>
#ifndef __CUDALINT_ATEN_DEVICE_UTILS_CUH
#define __CUDALINT_ATEN_DEVICE_UTILS_CUH
__device__ unsigned int ACTIVE_MASK();
__device__ void WARP_SYNC(unsigned mask = 0xffffffff);
__device__ unsigned int WARP_BALLOT(int predicate, unsigned int mask = 0xffffffff);
template <class T> __device__ T WARP_SHFL_XOR(T value, int laneMask, int width = warpSize, unsigned int mask = 0xffffffff);
template <class T> __device__ T WARP_SHFL(T value, int srcLane, int width = warpSize, unsigned int mask = 0xffffffff);
template <class T> __device__ T WARP_SHFL_UP(T value, unsigned int delta, int width = warpSize, unsigned int mask = 0xffffffff);
template <class T> __device__ T WARP_SHFL_DOWN(T value, unsigned int delta, int width = warpSize, unsigned int mask = 0xffffffff);
#endif
