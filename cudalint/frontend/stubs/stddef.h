#pragma once
/* cudalint stub: <stddef.h> (parse-only declarations, no implementations) */
#pragma clang system_header
#ifndef __CUDALINT_STDDEF_H
#define __CUDALINT_STDDEF_H
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __WCHAR_TYPE__ __cudalint_wchar_t;
typedef struct { long long __ll; long double __ld; } max_align_t;
#ifdef __cplusplus
typedef decltype(nullptr) nullptr_t;
#define NULL __null
#else
#define NULL ((void*)0)
#endif
#define offsetof(t, d) __builtin_offsetof(t, d)
#endif
