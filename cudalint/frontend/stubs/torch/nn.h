#pragma once
/* cudalint stub: <torch/nn.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
