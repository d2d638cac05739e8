#pragma once
/* cudalint stub: <ATen/OpMathType.h> */
#pragma clang system_header
#include <__cudalint/torch.h>
#ifndef __CUDALINT_ATEN_OPMATH_TYPE_H
#define __CUDALINT_ATEN_OPMATH_TYPE_H
namespace at {
template <class T> struct OpMathType { using type = T; };
template <> struct OpMathType<c10::Half> { using type = float; };
template <> struct OpMathType<c10::BFloat16> { using type = float; };
template <class T> using opmath_type = typename OpMathType<T>::type;
}
#endif
