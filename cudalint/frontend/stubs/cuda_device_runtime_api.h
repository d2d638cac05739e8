#pragma once
/* cudalint stub: <cuda_device_runtime_api.h> */
#pragma clang system_header
#include <cuda_runtime.h>
