#pragma once
/* cudalint stub: what <cub/cub.cuh> declares (block/warp collectives, a few device-wide algorithms), declarations only;
 * every cub/ stub header includes it.
 * TempStorage types are trivially constructible so they can be __shared__ like the real ones. */
#pragma clang system_header
#ifndef __CUDALINT_CUB_H
#define __CUDALINT_CUB_H
#include <cuda_runtime.h>
/* what <cub/cub.cuh> brings in CUDA 13 */
#include <cuda_fp8.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>
#define CUB_NAMESPACE_BEGIN namespace cub {
#define CUB_NAMESPACE_END }
#define CUB_PTX_ARCH 900
#define CUB_RUNTIME_FUNCTION __host__ __device__
namespace cub {
enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };
enum BlockLoadAlgorithm { BLOCK_LOAD_DIRECT, BLOCK_LOAD_STRIPED, BLOCK_LOAD_VECTORIZE, BLOCK_LOAD_TRANSPOSE,
                          BLOCK_LOAD_WARP_TRANSPOSE, BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED };
enum BlockStoreAlgorithm { BLOCK_STORE_DIRECT, BLOCK_STORE_STRIPED, BLOCK_STORE_VECTORIZE, BLOCK_STORE_TRANSPOSE,
                           BLOCK_STORE_WARP_TRANSPOSE, BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED };
struct Sum { template <class T, class U> __host__ __device__ auto operator()(const T& a, const U& b) const -> decltype(a + b) { return a + b; } };
struct Max { template <class T, class U> __host__ __device__ T operator()(const T& a, const U& b) const { return a < b ? b : a; } };
struct Min { template <class T, class U> __host__ __device__ T operator()(const T& a, const U& b) const { return b < a ? b : a; } };
template <class K, class V> struct KeyValuePair {
  typedef K Key;
  typedef V Value;
  K key;
  V value;
  KeyValuePair() = default;
  __host__ __device__ KeyValuePair(const K& k, const V& v) : key(k), value(v) {}
};
struct ArgMax { template <class T, class O> __host__ __device__ KeyValuePair<O, T> operator()(const KeyValuePair<O, T>& a, const KeyValuePair<O, T>& b) const; };
struct ArgMin { template <class T, class O> __host__ __device__ KeyValuePair<O, T> operator()(const KeyValuePair<O, T>& a, const KeyValuePair<O, T>& b) const; };
template <unsigned long long Bytes> struct __TempStorage { alignas(16) unsigned char __data[Bytes]; };
template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
 public:
  struct TempStorage : __TempStorage<sizeof(T) * 33> {};
  __device__ BlockReduce();
  __device__ BlockReduce(TempStorage& temp_storage);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op) { return input; }
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op, int num_valid) { return input; }
  template <int ITEMS, class ReductionOp> __device__ T Reduce(T (&inputs)[ITEMS], ReductionOp reduction_op) { return inputs[0]; }
  __device__ T Sum(T input);
  __device__ T Sum(T input, int num_valid);
  template <int ITEMS> __device__ T Sum(T (&inputs)[ITEMS]);
};
template <class T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0> class WarpReduce {
 public:
  struct TempStorage : __TempStorage<sizeof(T) * LOGICAL_WARP_THREADS> {};
  __device__ WarpReduce(TempStorage& temp_storage);
  __device__ T Sum(T input);
  __device__ T Sum(T input, int valid_items);
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op) { return input; }
  template <class ReductionOp> __device__ T Reduce(T input, ReductionOp reduction_op, int valid_items) { return input; }
  template <class FlagT> __device__ T HeadSegmentedSum(T input, FlagT head_flag);
};
template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1,
          int LEGACY_PTX_ARCH = 0>
class BlockScan {
 public:
  struct TempStorage : __TempStorage<sizeof(T) * 66> {};
  __device__ BlockScan();
  __device__ BlockScan(TempStorage& temp_storage);
  __device__ void InclusiveSum(T input, T& output);
  __device__ void InclusiveSum(T input, T& output, T& block_aggregate);
  __device__ void ExclusiveSum(T input, T& output);
  __device__ void ExclusiveSum(T input, T& output, T& block_aggregate);
  template <int ITEMS> __device__ void InclusiveSum(T (&input)[ITEMS], T (&output)[ITEMS]);
  template <int ITEMS> __device__ void ExclusiveSum(T (&input)[ITEMS], T (&output)[ITEMS]);
  template <class ScanOp> __device__ void InclusiveScan(T input, T& output, ScanOp scan_op) {}
  template <class ScanOp> __device__ void InclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) {}
  template <class ScanOp> __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op) {}
  template <class ScanOp> __device__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op, T& block_aggregate) {}
};
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
 public:
  struct TempStorage : __TempStorage<sizeof(T) * BLOCK_DIM_X * ITEMS_PER_THREAD> {};
  __device__ BlockLoad();
  __device__ BlockLoad(TempStorage& temp_storage);
  template <class InputIteratorT> __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]);
  template <class InputIteratorT> __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items);
  template <class InputIteratorT, class DefaultT>
  __device__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items, DefaultT oob_default);
};
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
 public:
  struct TempStorage : __TempStorage<sizeof(T) * BLOCK_DIM_X * ITEMS_PER_THREAD> {};
  __device__ BlockStore();
  __device__ BlockStore(TempStorage& temp_storage);
  template <class OutputIteratorT> __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]);
  template <class OutputIteratorT> __device__ void Store(OutputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items);
};
/* device-wide algorithms: host entry points, argument lists checked loosely */
struct DeviceReduce {
  template <class... A> static cudaError_t Sum(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t Max(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t Min(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t ArgMax(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t ArgMin(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t Reduce(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
};
struct DeviceScan {
  template <class... A> static cudaError_t InclusiveSum(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t ExclusiveSum(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t InclusiveScan(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t ExclusiveScan(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
};
struct DeviceRadixSort {
  template <class... A> static cudaError_t SortKeys(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t SortPairs(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t SortKeysDescending(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t SortPairsDescending(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
};
struct DeviceSegmentedReduce {
  template <class... A> static cudaError_t Sum(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t Max(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t Reduce(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
};
struct DeviceSelect {
  template <class... A> static cudaError_t Flagged(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
  template <class... A> static cudaError_t If(void* d_temp_storage, size_t& temp_storage_bytes, A&&... args) { return cudaSuccess; }
};
__device__ void CTA_SYNC();
__device__ void WARP_SYNC(unsigned int member_mask);
__device__ unsigned int LaneId();
__device__ unsigned int WarpId();
}  // namespace cub
#endif
