#pragma once
/* cudalint stub: <ATen/cuda/CUDAStream.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
