#pragma once
/* cudalint stub: <library_types.h> */
#pragma clang system_header
#include <cuda_runtime.h>
