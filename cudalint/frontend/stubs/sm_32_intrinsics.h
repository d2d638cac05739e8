#pragma once
/* cudalint stub: <sm_32_intrinsics.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#include <__cudalint/device_functions_rare.h>
