#pragma once
/* cudalint stub: CUDA execution-space / storage qualifiers, spelled with clang's CUDA attributes. */
#pragma clang system_header
#ifndef __CUDALINT_HOST_DEFINES_H
#define __CUDALINT_HOST_DEFINES_H
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 4
#define __CUDACC_VER_BUILD__ 131
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 12040
#endif
#ifndef __CUDART_API_VERSION
#define __CUDART_API_VERSION CUDART_VERSION
#endif
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((device)) /* clang only knows "managed" for HIP; managed variables are device variables */
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __grid_constant__ /* clang 18 does not know the grid_constant attribute */
#define __cluster_dims__(...)
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __inline_hint__ __inline__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(a) __attribute__((aligned(a)))
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
#define __thread__ __thread
#define __import__
#define __export__
#define __cdecl
#define __annotate__(a) __attribute__((a))
#define __location__(a) __annotate__(a)
#define CUDARTAPI
#define CUDAAPI
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__
#define __specialization_static
#define __nv_pure__ __attribute__((pure))
#define __CUDA_DEPRECATED
#define __DEPRECATED__(msg) __attribute__((deprecated(msg)))
/* __restrict__ and __noinline__ are keywords understood by clang itself in CUDA mode. */
#endif
