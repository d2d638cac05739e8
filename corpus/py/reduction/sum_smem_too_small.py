import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    __shared__ float partial[BLOCK];
    int tid = threadIdx.x;
    const float* row = x + (size_t)blockIdx.x * cols;

    float sum = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        sum += row[c];
    }
    // expect: CL203
    partial[tid] = sum;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            // expect: CL203
            partial[tid] += partial[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[blockIdx.x] = partial[0];
    }
}

torch::Tensor row_sum_cuda(torch::Tensor x) {
    x = x.contiguous();
    const int rows = x.size(0);
    const int cols = x.size(1);
    auto out = torch::empty({rows, 1}, x.options());
    // rows are long: use more threads per row
    const int threads = 512;
    row_sum_kernel<<<rows, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

cpp_src = "torch::Tensor row_sum_cuda(torch::Tensor x);"

row_sum_ext = load_inline(
    name="row_sum_smem_small",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["row_sum_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.row_sum_ext = row_sum_ext

    def forward(self, x):
        return self.row_sum_ext.row_sum_cuda(x)
