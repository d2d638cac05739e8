#pragma once
/* cudalint stub: <curand_kernel.h> (device API: state types, init and generators). */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_CURAND_KERNEL_H
#define __CUDALINT_CURAND_KERNEL_H
#include <curand.h>
struct curandStateXORWOW { unsigned int d, v[5]; int boxmuller_flag; int boxmuller_flag_double; float boxmuller_extra; double boxmuller_extra_double; };
struct curandStatePhilox4_32_10 { uint4 ctr; uint4 output; uint2 key; unsigned int STATE; int boxmuller_flag; int boxmuller_flag_double; float boxmuller_extra; double boxmuller_extra_double; };
struct curandStateMRG32k3a { unsigned int s1[3]; unsigned int s2[3]; int boxmuller_flag; int boxmuller_flag_double; float boxmuller_extra; double boxmuller_extra_double; };
struct curandStateSobol32 { unsigned int i, x, c; unsigned int direction_vectors[32]; };
/* curand_mtgp32_kernel.h, which the real header includes: one state serves the threads of one block */
struct mtgp32_kernel_params;
typedef struct mtgp32_kernel_params mtgp32_kernel_params_t;
struct curandStateMtgp32 { unsigned int s[1024]; int offset; int pIdx; mtgp32_kernel_params_t* k; };
typedef struct curandStateMtgp32 curandStateMtgp32_t;
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;
typedef struct curandStateSobol32 curandStateSobol32_t;
/* generic over the state type (the real header has one overload per state type) */
template <class S> __device__ void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset, S* state);
template <class S> __device__ unsigned int curand(S* state);
template <class S> __device__ float curand_uniform(S* state);
template <class S> __device__ double curand_uniform_double(S* state);
template <class S> __device__ float curand_normal(S* state);
template <class S> __device__ double curand_normal_double(S* state);
template <class S> __device__ float2 curand_normal2(S* state);
template <class S> __device__ double2 curand_normal2_double(S* state);
template <class S> __device__ float curand_log_normal(S* state, float mean, float stddev);
template <class S> __device__ unsigned int curand_poisson(S* state, double lambda);
template <class S> __device__ void skipahead(unsigned long long n, S* state);
template <class S> __device__ void skipahead_sequence(unsigned long long n, S* state);
__device__ uint4 curand4(curandStatePhilox4_32_10_t* state);
__device__ float4 curand_uniform4(curandStatePhilox4_32_10_t* state);
__device__ float4 curand_normal4(curandStatePhilox4_32_10_t* state);
__device__ double2 curand_uniform2_double(curandStatePhilox4_32_10_t* state);
#endif
