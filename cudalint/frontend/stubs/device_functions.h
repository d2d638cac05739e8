#pragma once
/* cudalint stub: <device_functions.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#include <__cudalint/device_functions_rare.h>
