#pragma once
/* cudalint stub: <cuda_fp16.h>. __half/__half2 follow the real class layout, including the macros torch's
 * cpp_extension passes (__CUDA_NO_HALF_CONVERSIONS__, __CUDA_NO_HALF_OPERATORS__, __CUDA_NO_HALF2_OPERATORS__),
 * which remove the implicit conversions/operators as in the real header. Shuffles and __ldg-style loads of
 * __half are covered by the generic templates in device_functions.h. */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDA_FP16_H__
#define __CUDA_FP16_H__
#define __CUDA_FP16_TYPES_EXIST__
struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x; unsigned short y; };
struct __nv_bfloat16;
struct __align__(2) __half {
 protected:
  unsigned short __x;
 public:
  __half() = default;
  __host__ __device__ constexpr __half(const __half_raw& hr) : __x(hr.x) {}
  __host__ __device__ __half& operator=(const __half_raw& hr);
  __host__ __device__ operator __half_raw() const;
#if !defined(__CUDA_NO_HALF_CONVERSIONS__)
  explicit __host__ __device__ __half(const __nv_bfloat16 f);
  __host__ __device__ __half(const float f);
  __host__ __device__ __half(const double f);
  __host__ __device__ operator float() const;
  __host__ __device__ __half& operator=(const float f);
  __host__ __device__ __half& operator=(const double f);
  __host__ __device__ __half(const short val);
  __host__ __device__ __half(const unsigned short val);
  __host__ __device__ __half(const int val);
  __host__ __device__ __half(const unsigned int val);
  __host__ __device__ __half(const long val);
  __host__ __device__ __half(const unsigned long val);
  __host__ __device__ __half(const long long val);
  __host__ __device__ __half(const unsigned long long val);
  __host__ __device__ operator signed char() const;
  __host__ __device__ operator unsigned char() const;
  __host__ __device__ operator char() const;
  __host__ __device__ operator short() const;
  __host__ __device__ operator unsigned short() const;
  __host__ __device__ operator int() const;
  __host__ __device__ operator unsigned int() const;
  __host__ __device__ operator long() const;
  __host__ __device__ operator unsigned long() const;
  __host__ __device__ operator long long() const;
  __host__ __device__ operator unsigned long long() const;
  __host__ __device__ __half& operator=(const short val);
  __host__ __device__ __half& operator=(const unsigned short val);
  __host__ __device__ __half& operator=(const int val);
  __host__ __device__ __half& operator=(const unsigned int val);
  __host__ __device__ __half& operator=(const long long val);
  __host__ __device__ __half& operator=(const unsigned long long val);
  __host__ __device__ constexpr operator bool() const { return (__x & 0x7FFFU) != 0U; }
#endif
};
struct __align__(4) __half2 {
  __half x;
  __half y;
  __half2() = default;
  __host__ __device__ constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  __host__ __device__ __half2(const __half2_raw& h2r);
  __host__ __device__ __half2& operator=(const __half2_raw& h2r);
  __host__ __device__ operator __half2_raw() const;
};
typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;
typedef __half nv_half;
typedef __half2 nv_half2;
#if !defined(__CUDA_NO_HALF_OPERATORS__)
__host__ __device__ __half operator+(const __half& lh, const __half& rh);
__host__ __device__ __half operator-(const __half& lh, const __half& rh);
__host__ __device__ __half operator*(const __half& lh, const __half& rh);
__host__ __device__ __half operator/(const __half& lh, const __half& rh);
__host__ __device__ __half& operator+=(__half& lh, const __half& rh);
__host__ __device__ __half& operator-=(__half& lh, const __half& rh);
__host__ __device__ __half& operator*=(__half& lh, const __half& rh);
__host__ __device__ __half& operator/=(__half& lh, const __half& rh);
__host__ __device__ __half& operator++(__half& h);
__host__ __device__ __half& operator--(__half& h);
__host__ __device__ __half operator++(__half& h, const int ignored);
__host__ __device__ __half operator--(__half& h, const int ignored);
__host__ __device__ __half operator+(const __half& h);
__host__ __device__ __half operator-(const __half& h);
__host__ __device__ bool operator==(const __half& lh, const __half& rh);
__host__ __device__ bool operator!=(const __half& lh, const __half& rh);
__host__ __device__ bool operator>(const __half& lh, const __half& rh);
__host__ __device__ bool operator<(const __half& lh, const __half& rh);
__host__ __device__ bool operator>=(const __half& lh, const __half& rh);
__host__ __device__ bool operator<=(const __half& lh, const __half& rh);
#endif
#if !defined(__CUDA_NO_HALF2_OPERATORS__)
__host__ __device__ __half2 operator+(const __half2& lh, const __half2& rh);
__host__ __device__ __half2 operator-(const __half2& lh, const __half2& rh);
__host__ __device__ __half2 operator*(const __half2& lh, const __half2& rh);
__host__ __device__ __half2 operator/(const __half2& lh, const __half2& rh);
__host__ __device__ __half2& operator+=(__half2& lh, const __half2& rh);
__host__ __device__ __half2& operator-=(__half2& lh, const __half2& rh);
__host__ __device__ __half2& operator*=(__half2& lh, const __half2& rh);
__host__ __device__ __half2& operator/=(__half2& lh, const __half2& rh);
__host__ __device__ __half2 operator+(const __half2& h);
__host__ __device__ __half2 operator-(const __half2& h);
__host__ __device__ bool operator==(const __half2& lh, const __half2& rh);
__host__ __device__ bool operator!=(const __half2& lh, const __half2& rh);
#endif
#pragma clang attribute push (__attribute__((host, device)), apply_to = function)
__half __double2half(const double a);
__half __float2half(const float a);
__half __float2half_rn(const float a);
__half __float2half_rz(const float a);
float __half2float(const __half a);
__half2 __float2half2_rn(const float a);
__half2 __floats2half2_rn(const float a, const float b);
float __low2float(const __half2 a);
float __high2float(const __half2 a);
int __half2int_rz(const __half h);
__half2 make_half2(const __half x, const __half y);
__half2 __float22half2_rn(const float2 a);
float2 __half22float2(const __half2 a);
__half __int2half_rn(const int i);
__half __int2half_rz(const int i);
__half __ll2half_rz(const long long int i);
__half2 __half2half2(const __half a);
__half __high2half(const __half2 a);
__half __low2half(const __half2 a);
int __hisinf(const __half a);
__half2 __halves2half2(const __half a, const __half b);
__half2 __low2half2(const __half2 a);
__half2 __high2half2(const __half2 a);
short int __half_as_short(const __half h);
unsigned short int __half_as_ushort(const __half h);
__half __short_as_half(const short int i);
__half __ushort_as_half(const unsigned short int i);
__half __hmax(const __half a, const __half b);
__half __hmin(const __half a, const __half b);
__half2 __hmax2(const __half2 a, const __half2 b);
__half2 __hmin2(const __half2 a, const __half2 b);
__half2 __heq2(const __half2 a, const __half2 b);
__half2 __hne2(const __half2 a, const __half2 b);
__half2 __hle2(const __half2 a, const __half2 b);
__half2 __hge2(const __half2 a, const __half2 b);
__half2 __hlt2(const __half2 a, const __half2 b);
__half2 __hgt2(const __half2 a, const __half2 b);
__half2 __hisnan2(const __half2 a);
__half2 __hadd2(const __half2 a, const __half2 b);
__half2 __hsub2(const __half2 a, const __half2 b);
__half2 __hmul2(const __half2 a, const __half2 b);
__half2 __h2div(const __half2 a, const __half2 b);
__half2 __habs2(const __half2 a);
__half2 __hneg2(const __half2 a);
__half __habs(const __half a);
__half __hadd(const __half a, const __half b);
__half __hsub(const __half a, const __half b);
__half __hmul(const __half a, const __half b);
__half __hdiv(const __half a, const __half b);
__half __hneg(const __half a);
bool __heq(const __half a, const __half b);
bool __hne(const __half a, const __half b);
bool __hle(const __half a, const __half b);
bool __hge(const __half a, const __half b);
bool __hlt(const __half a, const __half b);
bool __hgt(const __half a, const __half b);
bool __hisnan(const __half a);
__half __hmax_nan(const __half a, const __half b);
__half __hmin_nan(const __half a, const __half b);
#pragma clang attribute pop
#pragma clang attribute push (__attribute__((device)), apply_to = function)
int __half2int_rn(const __half h);
__half htrunc(const __half h);
__half hceil(const __half h);
__half hfloor(const __half h);
__half hrint(const __half h);
__half2 __hfma2(const __half2 a, const __half2 b, const __half2 c);
__half __hfma(const __half a, const __half b, const __half c);
__half hsqrt(const __half a);
__half hrsqrt(const __half a);
__half hrcp(const __half a);
__half hlog(const __half a);
__half hlog2(const __half a);
__half hlog10(const __half a);
__half hexp(const __half a);
__half htanh(const __half a);
__half2 h2tanh(const __half2 a);
__half hexp2(const __half a);
__half hexp10(const __half a);
__half hcos(const __half a);
__half hsin(const __half a);
__half2 h2sqrt(const __half2 a);
__half2 h2rsqrt(const __half2 a);
__half2 h2log(const __half2 a);
__half2 h2exp(const __half2 a);
__half2 h2cos(const __half2 a);
__half2 h2sin(const __half2 a);
__half2 atomicAdd(__half2 *const address, const __half2 val);
__half atomicAdd(__half *const address, const __half val);
#pragma clang attribute pop
#endif
