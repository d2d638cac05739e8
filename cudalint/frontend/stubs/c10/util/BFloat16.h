#pragma once
/* cudalint stub: <c10/util/BFloat16.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
