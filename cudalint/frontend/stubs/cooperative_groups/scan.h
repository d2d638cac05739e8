#pragma once
/* cudalint stub: <cooperative_groups/scan.h> */
#pragma clang system_header
#include <cooperative_groups.h>
#ifndef __CUDALINT_CG_SCAN_H
#define __CUDALINT_CG_SCAN_H
namespace cooperative_groups {
template <class TyGroup, class TyVal> __device__ __remove_cvref(TyVal) inclusive_scan(const TyGroup& group, TyVal&& val);
template <class TyGroup, class TyVal, class TyFn> __device__ __remove_cvref(TyVal) inclusive_scan(const TyGroup& group, TyVal&& val, TyFn&& op) { return val; }
template <class TyGroup, class TyVal> __device__ __remove_cvref(TyVal) exclusive_scan(const TyGroup& group, TyVal&& val);
template <class TyGroup, class TyVal, class TyFn> __device__ __remove_cvref(TyVal) exclusive_scan(const TyGroup& group, TyVal&& val, TyFn&& op) { return val; }
}
#endif
