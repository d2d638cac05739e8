#pragma once
/* cudalint stub: CUDA built-in variables. Plain extern __device__ variables so that `threadIdx.x` is a
 * MEMBER_REF_EXPR over a DECL_REF_EXPR in the AST. */
#pragma clang system_header
#ifndef __CUDALINT_DEVICE_LAUNCH_PARAMETERS_H
#define __CUDALINT_DEVICE_LAUNCH_PARAMETERS_H
#include <host_defines.h>
#include <vector_types.h>
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;
#endif
