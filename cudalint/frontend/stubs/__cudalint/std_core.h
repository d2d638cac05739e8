#pragma once
/* cudalint stub: the part of the C++ standard library that <cuda_runtime.h> makes visible under nvcc
 * (<cstddef>, <cstdint>, <initializer_list>, <utility>, <limits>, <new>, std::min/max and the most used
 * <type_traits>). Kept small for parse speed: traits use clang's builtin type-trait intrinsics; the rest of
 * <type_traits> is in std_traits.h. constexpr functions are implicitly __host__ __device__ in clang (nvcc needs
 * --expt-relaxed-constexpr for that, which torch's cpp_extension passes). */
#pragma clang system_header
#ifndef __CUDALINT_STD_CORE_H
#define __CUDALINT_STD_CORE_H
#include <host_defines.h>
#include <stddef.h>
#include <stdint.h>
namespace std {
using ::size_t; using ::ptrdiff_t; using ::max_align_t; using ::nullptr_t;
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t; using ::uint8_t; using ::uint16_t; using ::uint32_t;
using ::uint64_t; using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
template <class _E> class initializer_list {
  const _E* __b;
  size_t __n;
  constexpr initializer_list(const _E* __a, size_t __l) : __b(__a), __n(__l) {}
 public:
  typedef _E value_type;
  typedef const _E* iterator;
  typedef const _E* const_iterator;
  typedef size_t size_type;
  constexpr initializer_list() noexcept : __b(0), __n(0) {}
  constexpr size_t size() const noexcept { return __n; }
  constexpr const _E* begin() const noexcept { return __b; }
  constexpr const _E* end() const noexcept { return __b + __n; }
};
template <class _T, _T __v> struct integral_constant {
  static constexpr _T value = __v;
  typedef _T value_type;
  typedef integral_constant type;
  constexpr operator value_type() const noexcept { return value; }
  constexpr value_type operator()() const noexcept { return value; }
};
template <bool __v> using bool_constant = integral_constant<bool, __v>;
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <bool _B, class _T = void> struct enable_if {};
template <class _T> struct enable_if<true, _T> { typedef _T type; };
template <bool _B, class _T = void> using enable_if_t = typename enable_if<_B, _T>::type;
template <bool _B, class _T, class _F> struct conditional { typedef _T type; };
template <class _T, class _F> struct conditional<false, _T, _F> { typedef _F type; };
template <bool _B, class _T, class _F> using conditional_t = typename conditional<_B, _T, _F>::type;
template <class _T, class _U> struct is_same : bool_constant<__is_same(_T, _U)> {};
template <class _T, class _U> inline constexpr bool is_same_v = __is_same(_T, _U);
template <class _T> struct is_integral : bool_constant<__is_integral(_T)> {};
template <class _T> inline constexpr bool is_integral_v = __is_integral(_T);
template <class _T> struct is_floating_point : bool_constant<__is_floating_point(_T)> {};
template <class _T> inline constexpr bool is_floating_point_v = __is_floating_point(_T);
template <class _T> struct is_arithmetic : bool_constant<__is_arithmetic(_T)> {};
template <class _T> inline constexpr bool is_arithmetic_v = __is_arithmetic(_T);
template <class _T> struct is_signed : bool_constant<__is_signed(_T)> {};
template <class _T> struct is_unsigned : bool_constant<__is_unsigned(_T)> {};
template <class _T> struct is_pointer : bool_constant<__is_pointer(_T)> {};
template <class _T> struct is_const : bool_constant<__is_const(_T)> {};
template <class _T> struct is_void : bool_constant<__is_void(_T)> {};
template <class _T> struct is_reference : bool_constant<__is_reference(_T)> {};
template <class _T> struct remove_reference { typedef __remove_reference_t(_T) type; };
template <class _T> struct remove_cv { typedef __remove_cv(_T) type; };
template <class _T> struct remove_const { typedef __remove_const(_T) type; };
template <class _T> struct remove_pointer { typedef __remove_pointer(_T) type; };
template <class _T> struct decay { typedef __decay(_T) type; };
template <class _T> using remove_reference_t = __remove_reference_t(_T);
template <class _T> using remove_cv_t = __remove_cv(_T);
template <class _T> using remove_const_t = __remove_const(_T);
template <class _T> using remove_pointer_t = __remove_pointer(_T);
template <class _T> using decay_t = __decay(_T);
template <class _T> using remove_cvref_t = __remove_cvref(_T);
template <class _T> _T&& declval() noexcept;
template <class _T> constexpr __remove_reference_t(_T)&& move(_T&& __t) noexcept { return static_cast<__remove_reference_t(_T)&&>(__t); }
template <class _T> constexpr _T&& forward(__remove_reference_t(_T)& __t) noexcept { return static_cast<_T&&>(__t); }
template <class _T> constexpr _T&& forward(__remove_reference_t(_T)&& __t) noexcept { return static_cast<_T&&>(__t); }
template <class _T> void swap(_T& __a, _T& __b) noexcept;
template <class _T> constexpr const _T& min(const _T& __a, const _T& __b) { return (__b < __a) ? __b : __a; }
template <class _T> constexpr const _T& max(const _T& __a, const _T& __b) { return (__a < __b) ? __b : __a; }
template <class _T, class _C> constexpr const _T& min(const _T& __a, const _T& __b, _C __comp) { return __comp(__b, __a) ? __b : __a; }
template <class _T, class _C> constexpr const _T& max(const _T& __a, const _T& __b, _C __comp) { return __comp(__a, __b) ? __b : __a; }
template <class _T> constexpr _T min(initializer_list<_T> __l) { return *__l.begin(); }
template <class _T> constexpr _T max(initializer_list<_T> __l) { return *__l.begin(); }
template <class _T> constexpr const _T& clamp(const _T& __v, const _T& __lo, const _T& __hi) { return (__v < __lo) ? __lo : (__hi < __v) ? __hi : __v; }
/* <limits>: one template for every arithmetic type; libraries specialize it for their own types */
enum float_round_style { round_indeterminate = -1, round_toward_zero = 0, round_to_nearest = 1 };
enum float_denorm_style { denorm_indeterminate = -1, denorm_absent = 0, denorm_present = 1 };
template <class _T> struct numeric_limits {
  static constexpr bool is_specialized = __is_arithmetic(_T);
  static constexpr bool is_integer = __is_integral(_T);
  static constexpr bool is_signed = __is_signed(_T);
  static constexpr bool is_exact = __is_integral(_T);
  static constexpr bool has_infinity = __is_floating_point(_T);
  static constexpr bool has_quiet_NaN = __is_floating_point(_T);
  static constexpr bool is_iec559 = __is_floating_point(_T);
  static constexpr bool is_bounded = true;
  static constexpr int radix = 2;
  static constexpr int digits = __is_same(_T, float) ? 24 : __is_same(_T, double) ? 53 : __is_same(_T, bool) ? 1
                                : (int)(sizeof(_T) * 8 - __is_signed(_T));
  static constexpr int digits10 = __is_same(_T, float) ? 6 : __is_same(_T, double) ? 15 : (int)(digits * 301 / 1000);
  static constexpr int max_digits10 = __is_same(_T, float) ? 9 : __is_same(_T, double) ? 17 : 0;
  static constexpr int min_exponent = __is_same(_T, float) ? -125 : __is_same(_T, double) ? -1021 : 0;
  static constexpr int max_exponent = __is_same(_T, float) ? 128 : __is_same(_T, double) ? 1024 : 0;
  static constexpr float_round_style round_style = __is_floating_point(_T) ? round_to_nearest : round_toward_zero;
  static constexpr _T max() noexcept {
    return __is_same(_T, float) ? _T(__FLT_MAX__) : __is_same(_T, double) ? _T(__DBL_MAX__)
           : __is_same(_T, bool) ? _T(1) : __is_signed(_T) ? _T(((unsigned long long)1 << (sizeof(_T) * 8 - 1)) - 1) : _T(~0ULL);
  }
  static constexpr _T min() noexcept {
    return __is_same(_T, float) ? _T(__FLT_MIN__) : __is_same(_T, double) ? _T(__DBL_MIN__) : __is_signed(_T) ? _T(-max() - 1) : _T(0);
  }
  static constexpr _T lowest() noexcept { return __is_floating_point(_T) ? _T(-max()) : min(); }
  static constexpr _T epsilon() noexcept {
    return __is_same(_T, float) ? _T(__FLT_EPSILON__) : __is_same(_T, double) ? _T(__DBL_EPSILON__) : _T(0);
  }
  static constexpr _T round_error() noexcept { return _T(__is_floating_point(_T) ? 0.5 : 0); }
  static constexpr _T infinity() noexcept { return _T(__is_floating_point(_T) ? __builtin_huge_val() : 0); }
  static constexpr _T quiet_NaN() noexcept { return _T(__is_floating_point(_T) ? __builtin_nan("") : 0); }
  static constexpr _T signaling_NaN() noexcept { return _T(__is_floating_point(_T) ? __builtin_nans("") : 0); }
  static constexpr _T denorm_min() noexcept {
    return __is_same(_T, float) ? _T(__FLT_DENORM_MIN__) : __is_same(_T, double) ? _T(__DBL_DENORM_MIN__) : _T(0);
  }
};
template <class _T> struct numeric_limits<const _T> : numeric_limits<_T> {};
struct nothrow_t { explicit nothrow_t() = default; };
extern const nothrow_t nothrow;
}  // namespace std
__host__ __device__ inline void* operator new(std::size_t, void* __p) noexcept { return __p; }
__host__ __device__ inline void* operator new[](std::size_t, void* __p) noexcept { return __p; }
__device__ void* operator new(std::size_t __sz);
__device__ void* operator new[](std::size_t __sz);
__device__ void operator delete(void* __p) noexcept;
__device__ void operator delete[](void* __p) noexcept;
#endif
