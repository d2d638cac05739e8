#pragma once
/* cudalint stub: <math.h> (common functions and INFINITY/NAN/M_PI are in __cudalint/math_decls.h, which
 * <cuda_runtime.h> includes, as nvcc makes them visible without any #include) */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_MATH_H
#define __CUDALINT_MATH_H
#include <__cudalint/math_decls.h>
#define HUGE_VALL (__builtin_huge_vall())
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define M_PIf 3.14159265358979323846f
typedef float float_t;
typedef double double_t;
#endif
