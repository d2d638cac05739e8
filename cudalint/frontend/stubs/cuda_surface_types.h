#pragma once
/* cudalint stub: <cuda_surface_types.h> */
#pragma clang system_header
#include <cuda_runtime.h>
