#pragma once
/* cudalint stub: <torch/script.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
