#pragma once
/* cudalint stub: <texture_fetch_functions.h> */
#pragma clang system_header
#include <cuda_runtime.h>
