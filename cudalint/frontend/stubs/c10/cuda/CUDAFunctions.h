#pragma once
/* cudalint stub: <c10/cuda/CUDAFunctions.h> (see __cudalint/c10_cuda_functions.h) */
#pragma clang system_header
#include <__cudalint/c10_cuda_functions.h>
