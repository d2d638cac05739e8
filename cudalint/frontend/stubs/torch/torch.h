#pragma once
/* cudalint stub: <torch/torch.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
