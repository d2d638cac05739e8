#pragma once
/* cudalint stub: <pybind11/stl.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
