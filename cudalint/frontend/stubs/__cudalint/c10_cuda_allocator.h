#pragma once
/* cudalint stub: what <c10/cuda/CUDACachingAllocator.h> declares. torch/types.h and torch/extension.h do not include it: code that
 * uses these names without including the header does not build (a CL901 that names the header). */
#pragma clang system_header
#ifndef __CUDALINT_C10_CUDA_ALLOCATOR_H
#define __CUDALINT_C10_CUDA_ALLOCATOR_H
#include <__cudalint/torch.h>
#include <__cudalint/c10_cuda_stream.h>
namespace c10 {
namespace cuda {
namespace CUDACachingAllocator {
void* raw_alloc(size_t nbytes);
void* raw_alloc_with_stream(size_t nbytes, cudaStream_t stream);
void raw_delete(void* ptr);
void emptyCache();
}  // namespace CUDACachingAllocator
}  // namespace cuda
}  // namespace c10
#endif
