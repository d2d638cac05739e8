#pragma once
/* cudalint stub: <cuda_runtime_api.h> (the C API lives in __cudalint/runtime_api.h) */
#pragma clang system_header
#include <cuda_runtime.h>
