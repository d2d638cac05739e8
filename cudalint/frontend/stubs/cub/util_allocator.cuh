#pragma once
/* cudalint stub: <cub/util_allocator.cuh> */
#pragma clang system_header
#include <__cudalint/cub.h>
