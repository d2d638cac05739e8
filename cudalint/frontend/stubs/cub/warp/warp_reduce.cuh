#pragma once
/* cudalint stub: <cub/warp/warp_reduce.cuh> */
#pragma clang system_header
#include <__cudalint/cub.h>
