#pragma once
/* cudalint stub: <ATen/cuda/CUDAApplyUtils.cuh> */
#pragma clang system_header
#include <ATen/cuda/Atomic.cuh>
