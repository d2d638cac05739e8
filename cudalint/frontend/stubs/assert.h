/* cudalint stub: <assert.h> (no include guard, like the real one: NDEBUG may change between inclusions) */
#pragma clang system_header
#include <host_defines.h>
#ifndef __CUDALINT_ASSERT_DECL
#define __CUDALINT_ASSERT_DECL
__host__ __device__ void __assert_fail(const char* __assertion, const char* __file, unsigned int __line,
                                                    const char* __function) __attribute__((__noreturn__));
__host__ __device__ void __assertfail(const char* __assertion, const char* __file, unsigned int __line,
                                                   const char* __function, unsigned long __charSize);
#endif
#undef assert
#ifdef NDEBUG
#define assert(expr) (static_cast<void>(0))
#else
#define assert(expr) (static_cast<bool>(expr) ? void(0) : __assert_fail(#expr, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif
