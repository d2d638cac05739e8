#pragma once
/* cudalint stub: <cuda_texture_types.h> */
#pragma clang system_header
#include <cuda_runtime.h>
