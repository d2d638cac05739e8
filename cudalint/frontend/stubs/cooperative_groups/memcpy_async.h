#pragma once
/* cudalint stub: <cooperative_groups/memcpy_async.h> */
#pragma clang system_header
#include <cooperative_groups.h>
#ifndef __CUDALINT_CG_MEMCPY_ASYNC_H
#define __CUDALINT_CG_MEMCPY_ASYNC_H
namespace cuda { template <unsigned long long Alignment> struct aligned_size_t; }
namespace cooperative_groups {
template <class TyGroup> __device__ void memcpy_async(const TyGroup& group, void* dst, const void* src, unsigned long long count);
template <class TyGroup, unsigned long long A> __device__ void memcpy_async(const TyGroup& group, void* dst, const void* src, cuda::aligned_size_t<A> count);
template <class TyGroup, class TyElem> __device__ void memcpy_async(const TyGroup& group, TyElem* dst, unsigned long long dstCount, const TyElem* src, unsigned long long srcCount);
template <class TyGroup> __device__ void wait(const TyGroup& group);
template <unsigned int NumStages, class TyGroup> __device__ void wait_prior(const TyGroup& group);
}
#endif
