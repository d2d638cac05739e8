#pragma once
/* cudalint stub: <stdio.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_STDIO_H
#define __CUDALINT_STDIO_H
#include <host_defines.h>
#include <__cudalint/libc.h>
#include <stddef.h>
#include <stdarg.h>
typedef struct { long __pos; } fpos_t;
#define BUFSIZ 8192
#define FILENAME_MAX 4096
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
int vfprintf(FILE* __restrict __s, const char* __restrict __format, va_list __arg);
int vsprintf(char* __restrict __s, const char* __restrict __format, va_list __arg);
int scanf(const char* __restrict __format, ...);
int fscanf(FILE* __restrict __stream, const char* __restrict __format, ...);
int sscanf(const char* __restrict __s, const char* __restrict __format, ...);
int fputs(const char* __restrict __s, FILE* __restrict __stream);
int putchar(int __c);
int fputc(int __c, FILE* __stream);
int putc(int __c, FILE* __stream);
int getchar(void);
int fgetc(FILE* __stream);
int getc(FILE* __stream);
char* fgets(char* __restrict __s, int __n, FILE* __restrict __stream);
int fseek(FILE* __stream, long __off, int __whence);
long ftell(FILE* __stream);
void rewind(FILE* __stream);
int feof(FILE* __stream);
int ferror(FILE* __stream);
int remove(const char* __filename);
int rename(const char* __old, const char* __new);
void setbuf(FILE* __restrict __stream, char* __restrict __buf);
int setvbuf(FILE* __restrict __stream, char* __restrict __buf, int __modes, size_t __n);
#endif
