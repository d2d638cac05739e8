#pragma once
/* cudalint stub: <torch/library.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
