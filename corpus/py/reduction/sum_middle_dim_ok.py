import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// x: [B, R, C]; out[b, 0, c] = sum_r x[b, r, c]. Threads of a block walk adjacent c (coalesced).
__global__ void sum_dim1_kernel(const float* __restrict__ x, float* __restrict__ out, int R, int C) {
    const int b = blockIdx.y;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < C) {
        const float* p = x + (size_t)b * R * C + c;
        float acc = 0.0f;
        for (int r = 0; r < R; ++r) {
            acc += p[(size_t)r * C];
        }
        out[(size_t)b * C + c] = acc;
    }
}

torch::Tensor sum_dim1_cuda(torch::Tensor x) {
    x = x.contiguous();
    const int B = x.size(0);
    const int R = x.size(1);
    const int C = x.size(2);
    auto out = torch::empty({B, 1, C}, x.options());
    dim3 block(256);
    dim3 grid((C + block.x - 1) / block.x, B);
    sum_dim1_kernel<<<grid, block>>>(x.data_ptr<float>(), out.data_ptr<float>(), R, C);
    return out;
}
"""

cpp_source = "torch::Tensor sum_dim1_cuda(torch::Tensor x);"

sum_dim1 = load_inline(
    name="sum_dim1_keepdim",
    cpp_sources=[cpp_source],
    cuda_sources=[cuda_source],
    functions=["sum_dim1_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim
        self.sum_dim1 = sum_dim1

    def forward(self, x):
        return self.sum_dim1.sum_dim1_cuda(x)
