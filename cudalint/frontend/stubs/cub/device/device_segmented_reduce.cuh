#pragma once
/* cudalint stub: <cub/device/device_segmented_reduce.cuh> */
#pragma clang system_header
#include <__cudalint/cub.h>
