#pragma once
/* cudalint stub: <cuda_pipeline_primitives.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_CUDA_PIPELINE_PRIMITIVES_H
#define __CUDALINT_CUDA_PIPELINE_PRIMITIVES_H
__device__ void __pipeline_memcpy_async(void* __restrict__ dst_shared, const void* __restrict__ src_global,
                                        size_t size_and_align, size_t zfill = 0);
__device__ void __pipeline_commit();
__device__ void __pipeline_wait_prior(size_t prior);
__device__ void __pipeline_arrive_on(unsigned long long* bar);
#endif
