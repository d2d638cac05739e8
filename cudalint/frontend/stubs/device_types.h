#pragma once
/* cudalint stub: <device_types.h> */
#pragma clang system_header
#include <cuda_runtime.h>
