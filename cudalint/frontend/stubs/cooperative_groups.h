#pragma once
/* cudalint stub: <cooperative_groups.h> (declarations of the public API; member functions are __device__). */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_COOPERATIVE_GROUPS_H
#define __CUDALINT_COOPERATIVE_GROUPS_H
/* as the real one does since CUDA 13 (through libcu++) */
#include <cuda_fp8.h>
namespace cooperative_groups {
class thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ bool is_valid() const;
  __device__ unsigned int get_type() const;
};
class thread_block : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
  __device__ static void barrier_arrive_wait();
};
class grid_group : public thread_group {
 public:
  __device__ void sync() const;
  __device__ bool is_valid() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ unsigned long long block_rank() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
  __device__ dim3 dim_threads() const;
};
class cluster_group : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int num_blocks() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int block_rank() const;
  __device__ dim3 block_index() const;
  __device__ dim3 dim_blocks() const;
  __device__ unsigned int query_shared_rank(const void* addr) const;
  template <class T> __device__ T* map_shared_rank(T* addr, int rank) const;
  __device__ void barrier_wait() const;
};
/* thread_block_tile<N, Parent> converts to thread_block_tile<N> (void parent) as in the real header */
template <unsigned int Size, typename ParentT = void> class thread_block_tile;
template <unsigned int Size> class thread_block_tile<Size, void> : public thread_group {
 public:
  static constexpr unsigned int num_threads_v = Size;
  __device__ void sync() const;
  __device__ static constexpr unsigned int size() { return Size; }
  __device__ static constexpr unsigned int num_threads() { return Size; }
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  template <class T> __device__ T shfl(T var, int srcRank) const;
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const;
  template <class T> __device__ T shfl_up(T var, unsigned int delta) const;
  template <class T> __device__ T shfl_xor(T var, unsigned int laneMask) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
  __device__ unsigned int ballot(int predicate) const;
  template <class T> __device__ unsigned int match_any(T val) const;
  template <class T> __device__ unsigned int match_all(T val, int& pred) const;
};
template <unsigned int Size, typename ParentT> class thread_block_tile : public thread_block_tile<Size, void> {};
class coalesced_group : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  template <class T> __device__ T shfl(T var, unsigned int srcRank) const;
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const;
  template <class T> __device__ T shfl_up(T var, unsigned int delta) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
  __device__ unsigned int ballot(int predicate) const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ cluster_group this_cluster();
__device__ coalesced_group coalesced_threads();
template <unsigned int Size, class ParentT> __device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT& g);
__device__ thread_group tiled_partition(const thread_group& parent, unsigned int tilesz);
__device__ coalesced_group labeled_partition(const coalesced_group& g, int label);
__device__ coalesced_group binary_partition(const coalesced_group& g, bool pred);
template <class GroupT> __device__ void sync(GroupT const& g);
template <class GroupT> __device__ unsigned long long thread_rank(GroupT const& g);
template <class GroupT> __device__ unsigned long long group_size(GroupT const& g);
/* functors for reduce/scan (cooperative_groups/reduce.h); declared here so cg::plus etc. are always found */
template <class T> struct plus { __device__ T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(const T& a, const T& b) const { return a < b ? a : b; } };
template <class T> struct greater { __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(const T& a, const T& b) const { return a ^ b; } };
namespace details {}
}  // namespace cooperative_groups
#endif
