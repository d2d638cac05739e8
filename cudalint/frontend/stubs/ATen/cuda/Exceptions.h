#pragma once
/* cudalint stub: <ATen/cuda/Exceptions.h> (see __cudalint/aten_cuda_exceptions.h) */
#pragma clang system_header
#include <__cudalint/aten_cuda_exceptions.h>
