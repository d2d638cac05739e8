#pragma once
/* cudalint stub: <device_double_functions.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#include <__cudalint/device_functions_rare.h>
