#pragma once
/* cudalint stub: <pybind11/pybind11.h> (see __cudalint/torch.h) */
#pragma clang system_header
#include <__cudalint/torch.h>
