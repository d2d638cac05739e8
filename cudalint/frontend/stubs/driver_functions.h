#pragma once
/* cudalint stub: <driver_functions.h> */
#pragma clang system_header
#include <cuda_runtime.h>
