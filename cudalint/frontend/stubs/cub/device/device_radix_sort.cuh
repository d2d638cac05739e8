#pragma once
/* cudalint stub: <cub/device/device_radix_sort.cuh> */
#pragma clang system_header
#include <__cudalint/cub.h>
