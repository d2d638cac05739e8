#pragma once
/* cudalint stub: <cuda_fp8.h> (minimal: storage types and float conversions) */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDA_FP8_H__
#define __CUDA_FP8_H__
#include <cuda_fp16.h>
#include <cuda_bf16.h>
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE };
enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 };
struct __nv_fp8_e4m3 {
  __nv_fp8_storage_t __x;
  __nv_fp8_e4m3() = default;
  explicit __host__ __device__ __nv_fp8_e4m3(const float f);
  explicit __host__ __device__ __nv_fp8_e4m3(const double f);
  explicit __host__ __device__ __nv_fp8_e4m3(const __half f);
  explicit __host__ __device__ __nv_fp8_e4m3(const __nv_bfloat16 f);
  explicit __host__ __device__ operator float() const;
  explicit __host__ __device__ operator __half() const;
};
struct __nv_fp8_e5m2 {
  __nv_fp8_storage_t __x;
  __nv_fp8_e5m2() = default;
  explicit __host__ __device__ __nv_fp8_e5m2(const float f);
  explicit __host__ __device__ __nv_fp8_e5m2(const double f);
  explicit __host__ __device__ __nv_fp8_e5m2(const __half f);
  explicit __host__ __device__ __nv_fp8_e5m2(const __nv_bfloat16 f);
  explicit __host__ __device__ operator float() const;
  explicit __host__ __device__ operator __half() const;
};
struct __nv_fp8x4_e4m3 { __nv_fp8x4_storage_t __x; __nv_fp8x4_e4m3() = default; explicit __host__ __device__ __nv_fp8x4_e4m3(const float4 f); explicit __host__ __device__ operator float4() const; };
__host__ __device__ __nv_fp8_storage_t __nv_cvt_float_to_fp8(const float x, const __nv_saturation_t saturate, const __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(const float2 x, const __nv_saturation_t saturate, const __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __half_raw __nv_cvt_fp8_to_halfraw(const __nv_fp8_storage_t x, const __nv_fp8_interpretation_t fp8_interpretation);
__host__ __device__ __half2_raw __nv_cvt_fp8x2_to_halfraw2(const __nv_fp8x2_storage_t x, const __nv_fp8_interpretation_t fp8_interpretation);
#endif
