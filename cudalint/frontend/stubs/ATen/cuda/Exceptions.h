#pragma once
/* cudalint stub: <ATen/cuda/Exceptions.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
