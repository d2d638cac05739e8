#pragma once
/* cudalint stub: <ATen/cuda/CUDAGuard.h> (see __cudalint/c10_cuda_guard.h) */
#pragma clang system_header
#include <__cudalint/c10_cuda_guard.h>
