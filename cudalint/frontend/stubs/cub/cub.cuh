#pragma once
/* cudalint stub: <cub/cub.cuh> */
#pragma clang system_header
#include <__cudalint/cub.h>
