#pragma once
/* cudalint stub: <cuda_runtime.h>. nvcc pre-includes this in every .cu file, so every other stub header includes it
 * first. Besides the runtime API, the built-in variables, vector types, device intrinsics and the CUDA math library
 * it makes visible what the real one brings in transitively: the commonly used C library functions (printf, malloc,
 * memcpy, clock, ... in __cudalint/libc.h), assert, INFINITY/NAN/M_PI, and the core of <limits>, <type_traits>,
 * <utility>, <initializer_list> and <new> (std::min/max, numeric_limits, move/forward, placement new).
 * Deliberately small: libclang parses these declarations on every run. */
#pragma clang system_header
#ifndef __CUDALINT_CUDA_RUNTIME_H
#define __CUDALINT_CUDA_RUNTIME_H
#include <host_defines.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <float.h>
#include <vector_types.h>
#include <driver_types.h>
#include <device_launch_parameters.h>
#include <__cudalint/runtime_api.h>
#include <vector_functions.h>
#include <__cudalint/math_decls.h>
#include <__cudalint/device_functions.h>
#include <__cudalint/libc.h>
#include <assert.h>
#include <__cudalint/std_core.h>

/* C++ conveniences of the real cuda_runtime.h */
template <class T> __host__ cudaError_t cudaMalloc(T** devPtr, size_t size);
template <class T> __host__ cudaError_t cudaMallocHost(T** ptr, size_t size, unsigned int flags = 0);
template <class T> __host__ cudaError_t cudaHostAlloc(T** ptr, size_t size, unsigned int flags);
template <class T> __host__ cudaError_t cudaMallocManaged(T** devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
template <class T> __host__ cudaError_t cudaMallocPitch(T** devPtr, size_t* pitch, size_t width, size_t height);
template <class T> __host__ cudaError_t cudaMallocAsync(T** ptr, size_t size, cudaStream_t stream);
template <class T> __host__ cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                                           enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <class T> __host__ cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count,
                                                                size_t offset = 0,
                                                                enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                                cudaStream_t stream = 0);
template <class T> __host__ cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                                             enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
template <class T> __host__ cudaError_t cudaGetSymbolAddress(void** devPtr, const T& symbol);
template <class T> __host__ cudaError_t cudaFuncSetCacheConfig(T* func, enum cudaFuncCache cacheConfig);
template <class T> __host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, T* entry);
template <class T> __host__ cudaError_t cudaFuncSetAttribute(T* entry, enum cudaFuncAttribute attr, int value);
template <class T> __host__ cudaError_t cudaLaunchKernel(const T* func, dim3 gridDim, dim3 blockDim, void** args,
                                                         size_t sharedMem = 0, cudaStream_t stream = 0);
template <class T> __host__ cudaError_t cudaLaunchCooperativeKernel(const T* func, dim3 gridDim, dim3 blockDim, void** args,
                                                                    size_t sharedMem = 0, cudaStream_t stream = 0);
template <class... ExpTypes, class... ActTypes>
__host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, void (*kernel)(ExpTypes...), ActTypes&&... args) {
  return cudaSuccess;
}
template <class T> __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, T func, int blockSize,
                                                                                      size_t dynamicSMemSize);
template <class T> __host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, T func,
                                                                           size_t dynamicSMemSize = 0, int blockSizeLimit = 0);
template <class T> __host__ cudaError_t cudaHostGetDevicePointer(T** pDevice, void* pHost, unsigned int flags);
template <class T> __host__ cudaError_t cudaMallocAsync(T** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
template <class T> __host__ cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T* devPtr, size_t length = 0,
                                                                 unsigned int flags = cudaMemAttachSingle);
template <class T> __host__ cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count,
                                                                  size_t offset = 0,
                                                                  enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                                  cudaStream_t stream = 0);
template <class T> __host__ cudaError_t cudaGetSymbolSize(size_t* size, const T& symbol);
template <class T> __host__ cudaError_t cudaFuncSetSharedMemConfig(T* func, enum cudaSharedMemConfig config);
template <class T> __host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t* config, T* kernel, void** args);
template <class T> __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
template <class T> __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(
    int* minGridSize, int* blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0, unsigned int flags = 0);
template <class UnaryFunction, class T> __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int* minGridSize, int* blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize, int blockSizeLimit = 0) { return cudaSuccess; }
template <class T> __host__ cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, T func,
                                                                                  int numBlocks, int blockSize);
template <class T> __host__ cudaError_t cudaOccupancyMaxPotentialClusterSize(int* clusterSize, T* func,
                                                                             const cudaLaunchConfig_t* config);
template <class T> __host__ cudaError_t cudaOccupancyMaxActiveClusters(int* numClusters, T* func,
                                                                       const cudaLaunchConfig_t* config);
static inline __host__ cudaError_t cudaEventCreate(cudaEvent_t* event, unsigned int flags) {
  return cudaEventCreateWithFlags(event, flags);
}
#endif
