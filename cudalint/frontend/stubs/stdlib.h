#pragma once
/* cudalint stub: <stdlib.h> (abs/labs/llabs are declared with the math functions) */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_STDLIB_H
#define __CUDALINT_STDLIB_H
#include <host_defines.h>
#include <__cudalint/libc.h>
#include <stddef.h>
#include <__cudalint/math_decls.h>
typedef struct { int quot; int rem; } div_t;
typedef struct { long quot; long rem; } ldiv_t;
void* aligned_alloc(size_t __alignment, size_t __size);
int posix_memalign(void** __memptr, size_t __alignment, size_t __size);
void _Exit(int __status) __attribute__((__noreturn__));
int atexit(void (*__func)(void));
long long atoll(const char* __nptr);
unsigned long strtoul(const char* __restrict __nptr, char** __restrict __endptr, int __base);
long long strtoll(const char* __restrict __nptr, char** __restrict __endptr, int __base);
unsigned long long strtoull(const char* __restrict __nptr, char** __restrict __endptr, int __base);
int rand_r(unsigned int* __seed);
double drand48(void);
void srand48(long __seedval);
int setenv(const char* __name, const char* __value, int __replace);
int system(const char* __command);
void* bsearch(const void* __key, const void* __base, size_t __nmemb, size_t __size,
              int (*__compar)(const void*, const void*));
div_t div(int __numer, int __denom);
ldiv_t ldiv(long __numer, long __denom);
#endif
