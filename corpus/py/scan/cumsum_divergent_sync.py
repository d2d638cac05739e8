import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cumsum_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define MAX_COLS 1024

__global__ void cumsum_kernel(const float* __restrict__ input, float* __restrict__ output, int cols) {
    __shared__ float temp[MAX_COLS];
    int tid = threadIdx.x;
    int row = blockIdx.x;

    temp[tid] = (tid < cols) ? input[row * cols + tid] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < cols; offset *= 2) {
        if (tid >= offset) {
            float v = temp[tid - offset];
            // expect: CL102
            __syncthreads();
            temp[tid] += v;
        }
        __syncthreads();
    }

    if (tid < cols) {
        output[row * cols + tid] = temp[tid];
    }
}

torch::Tensor cumsum_cuda(torch::Tensor input) {
    auto output = torch::empty_like(input);
    int rows = input.size(0);
    int cols = input.size(1);
    cumsum_kernel<<<rows, MAX_COLS>>>(input.data_ptr<float>(), output.data_ptr<float>(), cols);
    return output;
}
"""

cumsum_cpp_source = "torch::Tensor cumsum_cuda(torch::Tensor input);"

cumsum = load_inline(
    name="cumsum_divergent_sync",
    cpp_sources=cumsum_cpp_source,
    cuda_sources=cumsum_source,
    functions=["cumsum_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.cumsum = cumsum

    def forward(self, x):
        return self.cumsum.cumsum_cuda(x.contiguous())
