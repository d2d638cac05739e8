#pragma once
/* cudalint stub: <c10/util/irange.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
