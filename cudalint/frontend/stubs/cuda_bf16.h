#pragma once
/* cudalint stub: <cuda_bf16.h>. __nv_bfloat16/__nv_bfloat162 follow the real class layout, including
 * __CUDA_NO_BFLOAT16_CONVERSIONS__ / __CUDA_NO_BFLOAT16_OPERATORS__ / __CUDA_NO_BFLOAT162_OPERATORS__. */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDA_BF16_H__
#define __CUDA_BF16_H__
#define __CUDA_BF16_TYPES_EXIST__
#include <cuda_fp16.h>
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x; unsigned short y; };
struct __align__(2) __nv_bfloat16 {
 protected:
  unsigned short __x;
 public:
  __nv_bfloat16() = default;
  __host__ __device__ constexpr __nv_bfloat16(const __nv_bfloat16_raw& hr) : __x(hr.x) {}
  __host__ __device__ __nv_bfloat16& operator=(const __nv_bfloat16_raw& hr);
  __host__ __device__ operator __nv_bfloat16_raw() const;
#if !defined(__CUDA_NO_BFLOAT16_CONVERSIONS__)
  explicit __host__ __device__ __nv_bfloat16(const __half f);
  __host__ __device__ __nv_bfloat16(const float f);
  __host__ __device__ __nv_bfloat16(const double f);
  __host__ __device__ operator float() const;
  __host__ __device__ __nv_bfloat16& operator=(const float f);
  __host__ __device__ __nv_bfloat16& operator=(const double f);
  __host__ __device__ __nv_bfloat16(short val);
  __host__ __device__ __nv_bfloat16(unsigned short val);
  __host__ __device__ __nv_bfloat16(int val);
  __host__ __device__ __nv_bfloat16(unsigned int val);
  __host__ __device__ __nv_bfloat16(const long val);
  __host__ __device__ __nv_bfloat16(const unsigned long val);
  __host__ __device__ __nv_bfloat16(long long val);
  __host__ __device__ __nv_bfloat16(unsigned long long val);
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
  __host__ __device__ __nv_bfloat16& operator=(short val);
  __host__ __device__ __nv_bfloat16& operator=(unsigned short val);
  __host__ __device__ __nv_bfloat16& operator=(int val);
  __host__ __device__ __nv_bfloat16& operator=(unsigned int val);
  __host__ __device__ __nv_bfloat16& operator=(long long val);
  __host__ __device__ __nv_bfloat16& operator=(unsigned long long val);
  __host__ __device__ constexpr operator bool() const { return (__x & 0x7FFFU) != 0U; }
#endif
};
struct __align__(4) __nv_bfloat162 {
  __nv_bfloat16 x;
  __nv_bfloat16 y;
  __nv_bfloat162() = default;
  __host__ __device__ constexpr __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
  __host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw& h2r);
  __host__ __device__ __nv_bfloat162& operator=(const __nv_bfloat162_raw& h2r);
  __host__ __device__ operator __nv_bfloat162_raw() const;
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
typedef __nv_bfloat16_raw nv_bfloat16_raw;
typedef __nv_bfloat162_raw nv_bfloat162_raw;
#if !defined(__CUDA_NO_BFLOAT16_OPERATORS__)
__host__ __device__ __nv_bfloat16 operator+(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ __nv_bfloat16 operator-(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ __nv_bfloat16 operator*(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ __nv_bfloat16 operator/(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ __nv_bfloat16& operator+=(__nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ __nv_bfloat16& operator-=(__nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ __nv_bfloat16& operator*=(__nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ __nv_bfloat16& operator/=(__nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ __nv_bfloat16& operator++(__nv_bfloat16& h);
__host__ __device__ __nv_bfloat16& operator--(__nv_bfloat16& h);
__host__ __device__ __nv_bfloat16 operator++(__nv_bfloat16& h, const int ignored);
__host__ __device__ __nv_bfloat16 operator--(__nv_bfloat16& h, const int ignored);
__host__ __device__ __nv_bfloat16 operator+(const __nv_bfloat16& h);
__host__ __device__ __nv_bfloat16 operator-(const __nv_bfloat16& h);
__host__ __device__ bool operator==(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ bool operator!=(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ bool operator>(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ bool operator<(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ bool operator>=(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
__host__ __device__ bool operator<=(const __nv_bfloat16& lh, const __nv_bfloat16& rh);
#endif
#if !defined(__CUDA_NO_BFLOAT162_OPERATORS__)
__host__ __device__ __nv_bfloat162 operator+(const __nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ __nv_bfloat162 operator-(const __nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ __nv_bfloat162 operator*(const __nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ __nv_bfloat162 operator/(const __nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ __nv_bfloat162& operator+=(__nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ __nv_bfloat162& operator-=(__nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ __nv_bfloat162& operator*=(__nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ __nv_bfloat162& operator/=(__nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ __nv_bfloat162 operator-(const __nv_bfloat162& h);
__host__ __device__ bool operator==(const __nv_bfloat162& lh, const __nv_bfloat162& rh);
__host__ __device__ bool operator!=(const __nv_bfloat162& lh, const __nv_bfloat162& rh);
#endif
#pragma clang attribute push (__attribute__((host, device)), apply_to = function)
__nv_bfloat16 __double2bfloat16(const double a);
__nv_bfloat16 __float2bfloat16(const float a);
__nv_bfloat16 __float2bfloat16_rn(const float a);
__nv_bfloat16 __float2bfloat16_rz(const float a);
float __bfloat162float(const __nv_bfloat16 a);
__nv_bfloat162 __float2bfloat162_rn(const float a);
__nv_bfloat162 __floats2bfloat162_rn(const float a, const float b);
float __low2float(const __nv_bfloat162 a);
float __high2float(const __nv_bfloat162 a);
__nv_bfloat162 __float22bfloat162_rn(const float2 a);
float2 __bfloat1622float2(const __nv_bfloat162 a);
int __bfloat162int_rz(const __nv_bfloat16 h);
__nv_bfloat16 __int2bfloat16_rn(const int i);
__nv_bfloat162 make_bfloat162(const __nv_bfloat16 x, const __nv_bfloat16 y);
__nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 a);
__nv_bfloat16 __high2bfloat16(const __nv_bfloat162 a);
__nv_bfloat16 __low2bfloat16(const __nv_bfloat162 a);
int __hisinf(const __nv_bfloat16 a);
__nv_bfloat162 __halves2bfloat162(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat162 __low2bfloat162(const __nv_bfloat162 a);
__nv_bfloat162 __high2bfloat162(const __nv_bfloat162 a);
short int __bfloat16_as_short(const __nv_bfloat16 h);
unsigned short int __bfloat16_as_ushort(const __nv_bfloat16 h);
__nv_bfloat16 __short_as_bfloat16(const short int i);
__nv_bfloat16 __ushort_as_bfloat16(const unsigned short int i);
__nv_bfloat162 __heq2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hne2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hle2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hge2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hlt2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hgt2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hisnan2(const __nv_bfloat162 a);
__nv_bfloat162 __hadd2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hsub2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hmul2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __h2div(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __habs2(const __nv_bfloat162 a);
__nv_bfloat162 __hneg2(const __nv_bfloat162 a);
__nv_bfloat16 __habs(const __nv_bfloat16 a);
__nv_bfloat16 __hadd(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat16 __hsub(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat16 __hmul(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat16 __hdiv(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat16 __hneg(const __nv_bfloat16 a);
bool __heq(const __nv_bfloat16 a, const __nv_bfloat16 b);
bool __hne(const __nv_bfloat16 a, const __nv_bfloat16 b);
bool __hle(const __nv_bfloat16 a, const __nv_bfloat16 b);
bool __hge(const __nv_bfloat16 a, const __nv_bfloat16 b);
bool __hlt(const __nv_bfloat16 a, const __nv_bfloat16 b);
bool __hgt(const __nv_bfloat16 a, const __nv_bfloat16 b);
bool __hisnan(const __nv_bfloat16 a);
__nv_bfloat16 __hmax(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat16 __hmin(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat16 __hmax_nan(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat16 __hmin_nan(const __nv_bfloat16 a, const __nv_bfloat16 b);
__nv_bfloat162 __hmax2(const __nv_bfloat162 a, const __nv_bfloat162 b);
__nv_bfloat162 __hmin2(const __nv_bfloat162 a, const __nv_bfloat162 b);
#pragma clang attribute pop
#pragma clang attribute push (__attribute__((device)), apply_to = function)
int __bfloat162int_rn(const __nv_bfloat16 h);
__nv_bfloat16 __int2bfloat16_rz(const int i);
__nv_bfloat16 __ll2bfloat16_rz(const long long int i);
__nv_bfloat16 htrunc(const __nv_bfloat16 h);
__nv_bfloat16 hceil(const __nv_bfloat16 h);
__nv_bfloat16 hfloor(const __nv_bfloat16 h);
__nv_bfloat16 hrint(const __nv_bfloat16 h);
__nv_bfloat162 __hfma2(const __nv_bfloat162 a, const __nv_bfloat162 b, const __nv_bfloat162 c);
__nv_bfloat16 __hfma(const __nv_bfloat16 a, const __nv_bfloat16 b, const __nv_bfloat16 c);
__nv_bfloat16 hsqrt(const __nv_bfloat16 a);
__nv_bfloat16 hrsqrt(const __nv_bfloat16 a);
__nv_bfloat16 hrcp(const __nv_bfloat16 a);
__nv_bfloat16 hlog(const __nv_bfloat16 a);
__nv_bfloat16 hlog2(const __nv_bfloat16 a);
__nv_bfloat16 hlog10(const __nv_bfloat16 a);
__nv_bfloat16 hexp(const __nv_bfloat16 a);
__nv_bfloat16 htanh(const __nv_bfloat16 a);
__nv_bfloat162 h2tanh(const __nv_bfloat162 a);
__nv_bfloat16 hexp2(const __nv_bfloat16 a);
__nv_bfloat16 hexp10(const __nv_bfloat16 a);
__nv_bfloat16 hcos(const __nv_bfloat16 a);
__nv_bfloat16 hsin(const __nv_bfloat16 a);
__nv_bfloat162 h2sqrt(const __nv_bfloat162 a);
__nv_bfloat162 h2rsqrt(const __nv_bfloat162 a);
__nv_bfloat162 h2log(const __nv_bfloat162 a);
__nv_bfloat162 h2exp(const __nv_bfloat162 a);
__nv_bfloat162 h2cos(const __nv_bfloat162 a);
__nv_bfloat162 h2sin(const __nv_bfloat162 a);
__nv_bfloat162 atomicAdd(__nv_bfloat162 *const address, const __nv_bfloat162 val);
__nv_bfloat16 atomicAdd(__nv_bfloat16 *const address, const __nv_bfloat16 val);
#pragma clang attribute pop
#endif
