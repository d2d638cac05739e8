#pragma once
/* cudalint stub: <builtin_types.h> */
#pragma clang system_header
#include <cuda_runtime.h>
