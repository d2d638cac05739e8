#pragma once
/* cudalint stub: the CUDA math library (host+device) as nvcc exposes it without any #include.
 * Declared in namespace __cudalint_math and made visible in :: and std:: by using-directives (cheaper to parse
 * than per-name using-declarations). Per function f: the C functions f##f(float) and f(double), the C++ overload
 * f(float), and a template for integral arguments (-> double, like libstdc++'s <cmath>); binary functions also get
 * a template promoting mixed arguments like <cmath>. Every function here is __host__ __device__ (one pragma
 * instead of an attribute per declaration, for parse speed). */
#pragma clang system_header
#ifndef __CUDALINT_MATH_DECLS_H
#define __CUDALINT_MATH_DECLS_H
#include <host_defines.h>
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))
#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
namespace __cudalint_math {
/* result types of the templated C++ overloads (no member: not viable) */
template <class _T, bool = __is_arithmetic(_T), bool = __is_convertible_to(_T, float)> struct __r {};
template <bool _F> struct __fd { typedef double type; };
template <> struct __fd<true> { typedef float type; };
template <class _T, bool _C> struct __r<_T, true, _C> { typedef typename __fd<__is_same(_T, float) || __is_same(_T, const float)>::type type; };
template <class _T> struct __r<_T, false, true> { typedef float type; };
template <class _A, class _B, bool = __is_arithmetic(_A) && __is_arithmetic(_B)> struct __r2 {};
template <class _A, class _B> struct __r2<_A, _B, true> {
  typedef decltype(typename __r<_A>::type() + typename __r<_B>::type()) type;
};
template <class _T, class _R = double, bool = __is_integral(_T)> struct __i {};
template <class _T, class _R> struct __i<_T, _R, true> { typedef _R type; };
template <class _T, class _R, bool = __is_arithmetic(_T) || __is_convertible_to(_T, float)> struct __rr {};
template <class _T, class _R> struct __rr<_T, _R, true> { typedef _R type; };
#define __CL_HD
#pragma clang attribute push (__attribute__((host, device)), apply_to = function)
/* f##f(float), f(float), f(double), and f(integral) -> double */
#define __CL_M1(n) float n##f(float __x); float n(float __x); double n(double __x); \
  template <class _T> typename __i<_T>::type n(_T __x);
#define __CL_M1R(n, R) R n##f(float __x); R n(float __x); R n(double __x); \
  template <class _T> typename __i<_T, R>::type n(_T __x);
#define __CL_M2(n) float n##f(float __x, float __y); float n(float __x, float __y); double n(double __x, double __y); \
  template <class _A, class _B> typename __r2<_A, _B>::type n(_A __x, _B __y);
__CL_M1(acos) __CL_M1(asin) __CL_M1(atan) __CL_M1(cos) __CL_M1(sin) __CL_M1(tan) __CL_M1(acosh) __CL_M1(asinh)
__CL_M1(atanh) __CL_M1(cosh) __CL_M1(sinh) __CL_M1(tanh) __CL_M1(exp) __CL_M1(exp2) __CL_M1(exp10) __CL_M1(expm1)
__CL_M1(log) __CL_M1(log10) __CL_M1(log2) __CL_M1(log1p) __CL_M1(sqrt) __CL_M1(rsqrt) __CL_M1(cbrt) __CL_M1(rcbrt)
__CL_M1(ceil) __CL_M1(floor) __CL_M1(trunc) __CL_M1(round) __CL_M1(rint) __CL_M1(nearbyint) __CL_M1(erf)
__CL_M1(erfc) __CL_M1(erfinv) __CL_M1(erfcinv) __CL_M1(normcdf) __CL_M1(normcdfinv) __CL_M1(lgamma) __CL_M1(tgamma)
__CL_M1(fabs) __CL_M1(sinpi) __CL_M1(cospi) __CL_M1(logb)
__CL_M1R(lround, long) __CL_M1R(llround, long long) __CL_M1R(lrint, long) __CL_M1R(llrint, long long) __CL_M1R(ilogb, int)
__CL_M2(pow) __CL_M2(atan2) __CL_M2(fmod) __CL_M2(remainder) __CL_M2(copysign) __CL_M2(fmax) __CL_M2(fmin)
__CL_M2(hypot) __CL_M2(fdim) __CL_M2(nextafter)
__CL_HD float pow(float __x, int __y);
__CL_HD double pow(double __x, int __y);
__CL_HD float fmaf(float __x, float __y, float __z);
__CL_HD float fma(float __x, float __y, float __z);
__CL_HD double fma(double __x, double __y, double __z);
__CL_HD float frexpf(float __x, int* __e);
__CL_HD double frexp(double __x, int* __e);
__CL_HD float frexp(float __x, int* __e);
__CL_HD float ldexpf(float __x, int __e);
__CL_HD float ldexp(float __x, int __e);
__CL_HD double ldexp(double __x, int __e);
__CL_HD float scalbnf(float __x, int __e);
__CL_HD float scalbn(float __x, int __e);
__CL_HD double scalbn(double __x, int __e);
__CL_HD float modff(float __x, float* __i);
__CL_HD double modf(double __x, double* __i);
__CL_HD float modf(float __x, float* __i);
__CL_HD void sincosf(float __x, float* __s, float* __c);
__CL_HD void sincos(double __x, double* __s, double* __c);
__CL_HD void sincos(float __x, float* __s, float* __c);
__CL_HD void sincospif(float __x, float* __s, float* __c);
__CL_HD float nanf(const char* __tag);
__CL_HD double nan(const char* __tag);
__CL_HD float fdividef(float __x, float __y);
__CL_HD int abs(int __a);
__CL_HD long labs(long __a);
__CL_HD long long llabs(long long __a);
__CL_HD long abs(long __a);
__CL_HD long long abs(long long __a);
__CL_HD float abs(float __a);
__CL_HD double abs(double __a);
template <class _T> __CL_HD typename __rr<_T, bool>::type isnan(_T __x);
template <class _T> __CL_HD typename __rr<_T, bool>::type isinf(_T __x);
template <class _T> __CL_HD typename __rr<_T, bool>::type isfinite(_T __x);
template <class _T> __CL_HD typename __rr<_T, bool>::type signbit(_T __x);
__CL_HD int __isnanf(float __x);
__CL_HD int __isinff(float __x);
__CL_HD int __finitef(float __x);
/* less common functions */
__CL_M1(erfcx) __CL_M1(j0) __CL_M1(j1) __CL_M1(y0) __CL_M1(y1) __CL_M1(cyl_bessel_i0) __CL_M1(cyl_bessel_i1)
__CL_M2(rhypot)
__CL_HD float jnf(int __n, float __x);
__CL_HD double jn(int __n, double __x);
__CL_HD float ynf(int __n, float __x);
__CL_HD double yn(int __n, double __x);
__CL_HD float scalblnf(float __x, long __n);
__CL_HD double scalbln(double __x, long __n);
__CL_HD float remquof(float __x, float __y, int* __q);
__CL_HD double remquo(double __x, double __y, int* __q);
__CL_HD void sincospi(double __x, double* __s, double* __c);
__CL_HD float norm3df(float __a, float __b, float __c);
__CL_HD double norm3d(double __a, double __b, double __c);
__CL_HD float rnorm3df(float __a, float __b, float __c);
__CL_HD double rnorm3d(double __a, double __b, double __c);
__CL_HD float norm4df(float __a, float __b, float __c, float __d);
__CL_HD double norm4d(double __a, double __b, double __c, double __d);
__CL_HD float rnorm4df(float __a, float __b, float __c, float __d);
__CL_HD double rnorm4d(double __a, double __b, double __c, double __d);
__CL_HD float normf(int __dim, const float* __p);
__CL_HD double norm(int __dim, const double* __p);
__CL_HD float rnormf(int __dim, const float* __p);
__CL_HD double rnorm(int __dim, const double* __p);
template <class _T> __CL_HD typename __rr<_T, bool>::type isnormal(_T __x);
template <class _T> __CL_HD typename __rr<_T, int>::type fpclassify(_T __x);
template <class _A, class _B> __CL_HD typename __r2<_A, _B>::type isgreater(_A __x, _B __y);
template <class _A, class _B> __CL_HD typename __r2<_A, _B>::type isless(_A __x, _B __y);
__CL_HD int __isnan(double __x);
__CL_HD int __isinf(double __x);
__CL_HD int __finite(double __x);
__CL_HD int __signbit(double __x);
__CL_HD int __signbitf(float __x);
/* min / max: CUDA's overload set (mixed signedness and float/double mixes resolve; other mixes are ambiguous) */
#define __CL_MM(R, A, B) __CL_HD R min(const A __a, const B __b); __CL_HD R max(const A __a, const B __b);
__CL_MM(int, int, int) __CL_MM(unsigned int, unsigned int, unsigned int) __CL_MM(unsigned int, int, unsigned int)
__CL_MM(unsigned int, unsigned int, int) __CL_MM(long, long, long) __CL_MM(unsigned long, unsigned long, unsigned long)
__CL_MM(unsigned long, long, unsigned long) __CL_MM(unsigned long, unsigned long, long)
__CL_MM(long long, long long, long long) __CL_MM(unsigned long long, unsigned long long, unsigned long long)
__CL_MM(unsigned long long, long long, unsigned long long) __CL_MM(unsigned long long, unsigned long long, long long)
__CL_MM(float, float, float) __CL_MM(double, double, double) __CL_MM(double, float, double) __CL_MM(double, double, float)
#undef __CL_MM
__CL_HD unsigned int umin(unsigned int __a, unsigned int __b);
__CL_HD unsigned int umax(unsigned int __a, unsigned int __b);
__CL_HD long long llmin(long long __a, long long __b);
__CL_HD long long llmax(long long __a, long long __b);
__CL_HD unsigned long long ullmin(unsigned long long __a, unsigned long long __b);
__CL_HD unsigned long long ullmax(unsigned long long __a, unsigned long long __b);
}  // namespace __cudalint_math
#pragma clang attribute pop
using namespace __cudalint_math;
namespace std { using namespace __cudalint_math; }
#endif
