#pragma once
/* cudalint stub: <ATen/cuda/CUDAContextLight.h> (see __cudalint/aten_cuda_context.h) */
#pragma clang system_header
#include <__cudalint/aten_cuda_context.h>
