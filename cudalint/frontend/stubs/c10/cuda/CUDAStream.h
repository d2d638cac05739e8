#pragma once
/* cudalint stub: <c10/cuda/CUDAStream.h> (see __cudalint/c10_cuda_stream.h) */
#pragma clang system_header
#include <__cudalint/c10_cuda_stream.h>
