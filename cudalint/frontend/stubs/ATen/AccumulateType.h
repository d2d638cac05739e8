#pragma once
/* cudalint stub: <ATen/AccumulateType.h> */
#pragma clang system_header
#include <__cudalint/torch.h>
#ifndef __CUDALINT_ATEN_ACCUMULATE_TYPE_H
#define __CUDALINT_ATEN_ACCUMULATE_TYPE_H
namespace at {
template <class T, bool is_cuda> struct AccumulateType { using type = T; };
template <bool c> struct AccumulateType<c10::Half, c> { using type = float; };
template <bool c> struct AccumulateType<c10::BFloat16, c> { using type = float; };
template <bool c> struct AccumulateType<float, c> { using type = typename std::conditional<c, float, double>::type; };
template <bool c> struct AccumulateType<int8_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<uint8_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<int16_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<int32_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<bool, c> { using type = bool; };
template <class T, bool is_cuda> using acc_type = typename AccumulateType<T, is_cuda>::type;
}
#endif
