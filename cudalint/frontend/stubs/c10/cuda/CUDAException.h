#pragma once
/* cudalint stub: <c10/cuda/CUDAException.h> (see __cudalint/c10_cuda_exception.h) */
#pragma clang system_header
#include <__cudalint/c10_cuda_exception.h>
