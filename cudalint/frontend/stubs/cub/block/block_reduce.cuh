#pragma once
/* cudalint stub: <cub/block/block_reduce.cuh> */
#pragma clang system_header
#include <__cudalint/cub.h>
