#pragma once
/* cudalint stub: <c10/cuda/CUDAGuard.h> (see __cudalint/c10_cuda_guard.h) */
#pragma clang system_header
#include <__cudalint/c10_cuda_guard.h>
