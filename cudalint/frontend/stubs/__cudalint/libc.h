#pragma once
/* cudalint stub: the commonly used C library functions that nvcc makes visible without #include
 * (<cuda_runtime.h> includes this; <stdio.h>, <stdlib.h>, <string.h>, <time.h> add the rest). */
#pragma clang system_header
#ifndef __CUDALINT_LIBC_H
#define __CUDALINT_LIBC_H
#include <host_defines.h>
#include <stddef.h>
#include <stdarg.h>
#define EOF (-1)
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#define RAND_MAX 2147483647
#define CLOCKS_PER_SEC ((clock_t)1000000)
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
typedef struct _IO_FILE FILE;
extern FILE* stdin;
extern FILE* stdout;
extern FILE* stderr;
#define stdin stdin
#define stdout stdout
#define stderr stderr
typedef long clock_t;
typedef long time_t;
typedef int clockid_t;
struct timespec { time_t tv_sec; long tv_nsec; };
extern "C" __host__ __device__ int printf(const char* __restrict __format, ...);
extern "C" int fprintf(FILE* __restrict __stream, const char* __restrict __format, ...);
extern "C" int sprintf(char* __restrict __s, const char* __restrict __format, ...);
extern "C" int snprintf(char* __restrict __s, size_t __maxlen, const char* __restrict __format, ...);
int vprintf(const char* __restrict __format, va_list __arg);
int vsnprintf(char* __restrict __s, size_t __maxlen, const char* __restrict __format, va_list __arg);
int puts(const char* __s);
FILE* fopen(const char* __restrict __filename, const char* __restrict __modes);
int fclose(FILE* __stream);
int fflush(FILE* __stream);
size_t fread(void* __restrict __ptr, size_t __size, size_t __n, FILE* __restrict __stream);
size_t fwrite(const void* __restrict __ptr, size_t __size, size_t __n, FILE* __restrict __s);
void perror(const char* __s);
__host__ __device__ void* malloc(size_t __size);
__host__ __device__ void free(void* __ptr);
void* calloc(size_t __nmemb, size_t __size);
void* realloc(void* __ptr, size_t __size);
void abort(void) __attribute__((__noreturn__));
void exit(int __status) __attribute__((__noreturn__));
int atoi(const char* __nptr);
long atol(const char* __nptr);
double atof(const char* __nptr);
long strtol(const char* __restrict __nptr, char** __restrict __endptr, int __base);
float strtof(const char* __restrict __nptr, char** __restrict __endptr);
double strtod(const char* __restrict __nptr, char** __restrict __endptr);
int rand(void);
void srand(unsigned int __seed);
char* getenv(const char* __name);
void qsort(void* __base, size_t __nmemb, size_t __size, int (*__compar)(const void*, const void*));
__host__ __device__ void* memcpy(void* __restrict __dest, const void* __restrict __src, size_t __n);
__host__ __device__ void* memset(void* __s, int __c, size_t __n);
void* memmove(void* __dest, const void* __src, size_t __n);
int memcmp(const void* __s1, const void* __s2, size_t __n);
size_t strlen(const char* __s);
int strcmp(const char* __s1, const char* __s2);
int strncmp(const char* __s1, const char* __s2, size_t __n);
char* strcpy(char* __restrict __dest, const char* __restrict __src);
char* strncpy(char* __restrict __dest, const char* __restrict __src, size_t __n);
char* strcat(char* __restrict __dest, const char* __restrict __src);
__host__ __device__ clock_t clock(void);
time_t time(time_t* __timer);
int clock_gettime(clockid_t __clock_id, struct timespec* __tp);
#endif
