import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

reduce_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// Completely unrolled block reduction (blockSize is a compile-time constant, so every
// `if (blockSize >= ...)` below is uniform across the block and the barriers inside are safe).
template <unsigned int blockSize>
__global__ void reduce_rows_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    __shared__ float sdata[blockSize];
    const unsigned int tid = threadIdx.x;
    const float* row = x + (size_t)blockIdx.x * cols;

    float sum = 0.0f;
    for (int c = tid; c < cols; c += blockSize) {
        sum += row[c];
    }
    sdata[tid] = sum;
    __syncthreads();

    if (blockSize >= 1024) {
        if (tid < 512) sdata[tid] = sum = sum + sdata[tid + 512];
        __syncthreads();
    }
    if (blockSize >= 512) {
        if (tid < 256) sdata[tid] = sum = sum + sdata[tid + 256];
        __syncthreads();
    }
    if (blockSize >= 256) {
        if (tid < 128) sdata[tid] = sum = sum + sdata[tid + 128];
        __syncthreads();
    }
    if (blockSize >= 128) {
        if (tid < 64) sdata[tid] = sum = sum + sdata[tid + 64];
        __syncthreads();
    }

    if (tid < 32) {
        if (blockSize >= 64) sum += sdata[tid + 32];
        for (int offset = 16; offset > 0; offset >>= 1) {
            sum += __shfl_down_sync(0xffffffff, sum, offset);
        }
        if (tid == 0) out[blockIdx.x] = sum;
    }
}

torch::Tensor reduce_rows_cuda(torch::Tensor x) {
    x = x.contiguous();
    const int rows = x.size(0);
    const int cols = x.size(1);
    auto out = torch::empty({rows}, x.options());
    if (cols >= 4096) {
        reduce_rows_kernel<512><<<rows, 512>>>(x.data_ptr<float>(), out.data_ptr<float>(), cols);
    } else {
        reduce_rows_kernel<128><<<rows, 128>>>(x.data_ptr<float>(), out.data_ptr<float>(), cols);
    }
    return out;
}
"""

reduce_cpp_source = "torch::Tensor reduce_rows_cuda(torch::Tensor x);"

reduce_rows = load_inline(
    name="reduce_rows_unrolled",
    cpp_sources=reduce_cpp_source,
    cuda_sources=reduce_source,
    functions=["reduce_rows_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.reduce_rows = reduce_rows

    def forward(self, x):
        return self.reduce_rows.reduce_rows_cuda(x)
