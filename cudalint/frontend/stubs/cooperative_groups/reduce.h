#pragma once
/* cudalint stub: <cooperative_groups/reduce.h> */
#pragma clang system_header
#include <cooperative_groups.h>
#ifndef __CUDALINT_CG_REDUCE_H
#define __CUDALINT_CG_REDUCE_H
namespace cooperative_groups {
template <class TyGroup, class TyVal, class TyOp>
__device__ __remove_cvref(TyVal) reduce(const TyGroup& group, TyVal&& val, TyOp&& op) { return val; }
template <class TyGroup, class TyVal, class TyOp>
__device__ void reduce_update_async(const TyGroup& group, TyVal& dst, const TyVal& val, TyOp&& op) {}
template <class TyGroup, class TyVal, class TyOp>
__device__ void reduce_store_async(const TyGroup& group, TyVal* dst, const TyVal& val, TyOp&& op) {}
}
#endif
