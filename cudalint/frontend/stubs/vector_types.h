#pragma once
/* cudalint stub: CUDA built-in vector types, uint3 and dim3. */
#pragma clang system_header
#ifndef __CUDALINT_VECTOR_TYPES_H
#define __CUDALINT_VECTOR_TYPES_H
#include <host_defines.h>
struct char1 { signed char x; };
struct __attribute__((aligned(2))) char2 { signed char x, y; };
struct char3 { signed char x, y, z; };
struct __attribute__((aligned(4))) char4 { signed char x, y, z, w; };
struct uchar1 { unsigned char x; };
struct __attribute__((aligned(2))) uchar2 { unsigned char x, y; };
struct uchar3 { unsigned char x, y, z; };
struct __attribute__((aligned(4))) uchar4 { unsigned char x, y, z, w; };
struct short1 { short x; };
struct __attribute__((aligned(4))) short2 { short x, y; };
struct short3 { short x, y, z; };
struct __attribute__((aligned(8))) short4 { short x, y, z, w; };
struct ushort1 { unsigned short x; };
struct __attribute__((aligned(4))) ushort2 { unsigned short x, y; };
struct ushort3 { unsigned short x, y, z; };
struct __attribute__((aligned(8))) ushort4 { unsigned short x, y, z, w; };
struct int1 { int x; };
struct __attribute__((aligned(8))) int2 { int x, y; };
struct int3 { int x, y, z; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct uint1 { unsigned int x; };
struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
struct uint3 { unsigned int x, y, z; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
struct long1 { long x; };
struct __attribute__((aligned(16))) long2 { long x, y; };
struct long3 { long x, y, z; };
struct __attribute__((aligned(16))) long4 { long x, y, z, w; };
struct ulong1 { unsigned long x; };
struct __attribute__((aligned(16))) ulong2 { unsigned long x, y; };
struct ulong3 { unsigned long x, y, z; };
struct __attribute__((aligned(16))) ulong4 { unsigned long x, y, z, w; };
struct longlong1 { long long x; };
struct __attribute__((aligned(16))) longlong2 { long long x, y; };
struct longlong3 { long long x, y, z; };
struct __attribute__((aligned(16))) longlong4 { long long x, y, z, w; };
struct ulonglong1 { unsigned long long x; };
struct __attribute__((aligned(16))) ulonglong2 { unsigned long long x, y; };
struct ulonglong3 { unsigned long long x, y, z; };
struct __attribute__((aligned(16))) ulonglong4 { unsigned long long x, y, z, w; };
struct float1 { float x; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct float3 { float x, y, z; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct double1 { double x; };
struct __attribute__((aligned(16))) double2 { double x, y; };
struct double3 { double x, y, z; };
struct __attribute__((aligned(16))) double4 { double x, y, z, w; };
struct double4_16a { double x, y, z, w; } __attribute__((aligned(16)));
struct double4_32a { double x, y, z, w; } __attribute__((aligned(32)));
struct long4_16a { long x, y, z, w; } __attribute__((aligned(16)));
struct long4_32a { long x, y, z, w; } __attribute__((aligned(32)));
struct longlong4_16a { long long x, y, z, w; } __attribute__((aligned(16)));
struct longlong4_32a { long long x, y, z, w; } __attribute__((aligned(32)));
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3(void) const { return uint3{x, y, z}; }
};
#endif
