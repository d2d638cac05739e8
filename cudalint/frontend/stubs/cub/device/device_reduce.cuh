#pragma once
/* cudalint stub: <cub/device/device_reduce.cuh> */
#pragma clang system_header
#include <__cudalint/cub.h>
