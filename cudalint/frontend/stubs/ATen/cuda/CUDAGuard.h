#pragma once
/* cudalint stub: <ATen/cuda/CUDAGuard.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
