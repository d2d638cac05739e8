#pragma once
/* cudalint stub: <cuda_awbarrier_primitives.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_CUDA_AWBARRIER_PRIMITIVES_H
#define __CUDALINT_CUDA_AWBARRIER_PRIMITIVES_H
typedef unsigned long long __mbarrier_t;
typedef unsigned long long __mbarrier_token_t;
__device__ void __mbarrier_init(__mbarrier_t* barrier, unsigned int expected_count);
__device__ void __mbarrier_inval(__mbarrier_t* barrier);
__device__ __mbarrier_token_t __mbarrier_arrive(__mbarrier_t* barrier);
__device__ __mbarrier_token_t __mbarrier_arrive_and_drop(__mbarrier_t* barrier);
__device__ bool __mbarrier_test_wait(__mbarrier_t* barrier, __mbarrier_token_t token);
__device__ unsigned int __mbarrier_token_pending_count(__mbarrier_token_t token);
#endif
