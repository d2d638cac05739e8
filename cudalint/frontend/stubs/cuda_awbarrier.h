#pragma once
/* cudalint stub: <cuda_awbarrier.h> */
#pragma clang system_header
#include <cuda_runtime.h>
#include <cuda_awbarrier_primitives.h>
