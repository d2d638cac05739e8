#pragma once
/* cudalint stub: <time.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_TIME_H
#define __CUDALINT_TIME_H
#include <host_defines.h>
#include <__cudalint/libc.h>
#include <stddef.h>
struct timeval { long tv_sec; long tv_usec; };
struct tm { int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday, tm_yday, tm_isdst; long tm_gmtoff; const char* tm_zone; };
#define CLOCK_PROCESS_CPUTIME_ID 2
double difftime(time_t __time1, time_t __time0);
int gettimeofday(struct timeval* __tv, void* __tz);
struct tm* localtime(const time_t* __timer);
struct tm* gmtime(const time_t* __timer);
size_t strftime(char* __s, size_t __maxsize, const char* __format, const struct tm* __tp);
int nanosleep(const struct timespec* __req, struct timespec* __rem);
#endif
