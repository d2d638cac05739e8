#pragma once
/* cudalint stub: <string.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_STRING_H
#define __CUDALINT_STRING_H
#include <host_defines.h>
#include <__cudalint/libc.h>
#include <stddef.h>
void* memchr(const void* __s, int __c, size_t __n);
char* strncat(char* __restrict __dest, const char* __restrict __src, size_t __n);
char* strchr(const char* __s, int __c);
char* strrchr(const char* __s, int __c);
char* strstr(const char* __haystack, const char* __needle);
char* strtok(char* __restrict __s, const char* __restrict __delim);
char* strdup(const char* __s);
char* strerror(int __errnum);
size_t strspn(const char* __s, const char* __accept);
size_t strcspn(const char* __s, const char* __reject);
#endif
