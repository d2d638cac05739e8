#pragma once
/* cudalint stub: <c10/cuda/CUDACachingAllocator.h> (see __cudalint/c10_cuda_allocator.h) */
#pragma clang system_header
#include <__cudalint/c10_cuda_allocator.h>
