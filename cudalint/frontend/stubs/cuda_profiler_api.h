#pragma once
/* cudalint stub: <cuda_profiler_api.h> (cudaProfilerStart/Stop are declared with the runtime API) */
#pragma clang system_header
#include <cuda_runtime.h>
