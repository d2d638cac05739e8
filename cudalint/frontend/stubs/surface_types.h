#pragma once
/* cudalint stub: <surface_types.h> */
#pragma clang system_header
#include <cuda_runtime.h>
