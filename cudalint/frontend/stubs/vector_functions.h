#pragma once
/* cudalint stub: make_<vector> constructors. */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_VECTOR_FUNCTIONS_H
#define __CUDALINT_VECTOR_FUNCTIONS_H
#include <vector_types.h>
#pragma clang attribute push (__attribute__((host, device)), apply_to = function)
char1 make_char1(signed char x);
char2 make_char2(signed char x, signed char y);
char3 make_char3(signed char x, signed char y, signed char z);
char4 make_char4(signed char x, signed char y, signed char z, signed char w);
uchar1 make_uchar1(unsigned char x);
uchar2 make_uchar2(unsigned char x, unsigned char y);
uchar3 make_uchar3(unsigned char x, unsigned char y, unsigned char z);
uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w);
short1 make_short1(short x);
short2 make_short2(short x, short y);
short3 make_short3(short x, short y, short z);
short4 make_short4(short x, short y, short z, short w);
ushort1 make_ushort1(unsigned short x);
ushort2 make_ushort2(unsigned short x, unsigned short y);
ushort3 make_ushort3(unsigned short x, unsigned short y, unsigned short z);
ushort4 make_ushort4(unsigned short x, unsigned short y, unsigned short z, unsigned short w);
int1 make_int1(int x);
int2 make_int2(int x, int y);
int3 make_int3(int x, int y, int z);
int4 make_int4(int x, int y, int z, int w);
uint1 make_uint1(unsigned int x);
uint2 make_uint2(unsigned int x, unsigned int y);
uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z);
uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w);
long1 make_long1(long x);
long2 make_long2(long x, long y);
long3 make_long3(long x, long y, long z);
long4 make_long4(long x, long y, long z, long w);
ulong1 make_ulong1(unsigned long x);
ulong2 make_ulong2(unsigned long x, unsigned long y);
ulong3 make_ulong3(unsigned long x, unsigned long y, unsigned long z);
ulong4 make_ulong4(unsigned long x, unsigned long y, unsigned long z, unsigned long w);
longlong1 make_longlong1(long long x);
longlong2 make_longlong2(long long x, long long y);
longlong3 make_longlong3(long long x, long long y, long long z);
longlong4 make_longlong4(long long x, long long y, long long z, long long w);
ulonglong1 make_ulonglong1(unsigned long long x);
ulonglong2 make_ulonglong2(unsigned long long x, unsigned long long y);
ulonglong3 make_ulonglong3(unsigned long long x, unsigned long long y, unsigned long long z);
ulonglong4 make_ulonglong4(unsigned long long x, unsigned long long y, unsigned long long z, unsigned long long w);
float1 make_float1(float x);
float2 make_float2(float x, float y);
float3 make_float3(float x, float y, float z);
float4 make_float4(float x, float y, float z, float w);
double1 make_double1(double x);
double2 make_double2(double x, double y);
double3 make_double3(double x, double y, double z);
double4 make_double4(double x, double y, double z, double w);
#pragma clang attribute pop
#endif
