import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

row_sum_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define MAX_COLS 16384

// Stage the whole row in shared memory first so the reduction never touches global memory again.
__global__ void row_sum_cached_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    // expect: CL301
    __shared__ float row_cache[MAX_COLS];
    __shared__ float partial[256];
    const int tid = threadIdx.x;
    const float* row = x + (size_t)blockIdx.x * cols;

    for (int c = tid; c < cols; c += blockDim.x) {
        row_cache[c] = row[c];
    }
    __syncthreads();

    float sum = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        sum += row_cache[c];
    }
    partial[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            partial[tid] += partial[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = partial[0];
    }
}

torch::Tensor row_sum_cuda(torch::Tensor x) {
    TORCH_CHECK(x.size(1) <= MAX_COLS, "row too long");
    x = x.contiguous();
    const int rows = x.size(0);
    const int cols = x.size(1);
    auto out = torch::empty({rows, 1}, x.options());
    row_sum_cached_kernel<<<rows, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

row_sum_cpp_source = "torch::Tensor row_sum_cuda(torch::Tensor x);"

row_sum = load_inline(
    name="row_sum_cached_64k",
    cpp_sources=row_sum_cpp_source,
    cuda_sources=row_sum_source,
    functions=["row_sum_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.row_sum = row_sum

    def forward(self, x):
        return self.row_sum.row_sum_cuda(x)
