#pragma once
/* cudalint stub: <mma.h> (nvcuda::wmma). Fragments are plain structs with num_elements / x[] like the real ones. */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_MMA_H
#define __CUDALINT_MMA_H
#include <cuda_fp16.h>
#include <cuda_bf16.h>
namespace nvcuda {
namespace wmma {
struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32;
struct b1;
struct u4;
struct s4;
}  // namespace precision
namespace experimental {
namespace precision { struct u4; struct s4; struct b1; }
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
}  // namespace experimental
template <class T> struct __storage { typedef T type; };
template <> struct __storage<precision::tf32> { typedef float type; };
template <> struct __storage<precision::b1> { typedef unsigned type; };
template <> struct __storage<precision::u4> { typedef unsigned type; };
template <> struct __storage<precision::s4> { typedef int type; };
template <class Use, int m, int n, int k, class T, class Layout = void> class fragment {
 public:
  typedef typename __storage<T>::type element_type;
  typedef typename __storage<T>::type storage_element_type;
  enum { num_elements = 8, num_storage_elements = 8 };
  storage_element_type x[num_elements];
};
template <class Use, int m, int n, int k, class T, class L>
__device__ void fill_fragment(fragment<Use, m, n, k, T, L>& a, const typename fragment<Use, m, n, k, T, L>::element_type& v);
template <class Use, int m, int n, int k, class T, class L>
__device__ void load_matrix_sync(fragment<Use, m, n, k, T, L>& a, const typename __storage<T>::type* p, unsigned ldm);
template <int m, int n, int k, class T>
__device__ void load_matrix_sync(fragment<accumulator, m, n, k, T>& a, const T* p, unsigned ldm, layout_t layout);
template <int m, int n, int k, class T>
__device__ void store_matrix_sync(T* p, const fragment<accumulator, m, n, k, T>& a, unsigned ldm, layout_t layout);
template <int m, int n, int k, class Ta, class Tb, class La, class Lb, class Tc, class Td>
__device__ void mma_sync(fragment<accumulator, m, n, k, Td>& d, const fragment<matrix_a, m, n, k, Ta, La>& a,
                         const fragment<matrix_b, m, n, k, Tb, Lb>& b, const fragment<accumulator, m, n, k, Tc>& c,
                         bool satf = false);
template <int m, int n, int k, class Ta, class Tb, class La, class Lb>
__device__ void bmma_sync(fragment<accumulator, m, n, k, int>& d, const fragment<matrix_a, m, n, k, Ta, La>& a,
                          const fragment<matrix_b, m, n, k, Tb, Lb>& b, const fragment<accumulator, m, n, k, int>& c,
                          experimental::bmmaBitOp = experimental::bmmaBitOpXOR,
                          experimental::bmmaAccumulateOp = experimental::bmmaAccumulateOpPOPC);
__device__ float __float_to_tf32(float in);
}  // namespace wmma
}  // namespace nvcuda
#endif
