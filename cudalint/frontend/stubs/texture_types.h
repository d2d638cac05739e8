#pragma once
/* cudalint stub: <texture_types.h> */
#pragma clang system_header
#include <cuda_runtime.h>
