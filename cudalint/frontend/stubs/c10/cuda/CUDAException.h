#pragma once
/* cudalint stub: <c10/cuda/CUDAException.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
