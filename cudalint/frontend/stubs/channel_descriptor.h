#pragma once
/* cudalint stub: <channel_descriptor.h> */
#pragma clang system_header
#include <cuda_runtime.h>
