import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scale_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// out[i, j] = x[i, j] * weight[j]
__global__ void row_scale_kernel(const float* __restrict__ x, const float* __restrict__ weight,
                                 float* __restrict__ out, int total, int hidden) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < total) {
        out[idx] = x[idx] * weight[idx % hidden];
    }
}

torch::Tensor row_scale_cuda(torch::Tensor x, torch::Tensor weight) {
    auto out = torch::empty_like(x);
    int total = x.numel();
    int hidden = weight.numel();
    int threads = 256;
    int blocks = (total + threads - 1) / threads;
    row_scale_kernel<<<blocks, threads>>>(x.data_ptr<float>(), weight.data_ptr<float>(), out.data_ptr<float>(), total, hidden);
    return out;
}
"""

scale_cpp_source = "torch::Tensor row_scale_cuda(torch::Tensor x, torch::Tensor weight);"

row_scale = load_inline(
    name="rmsnorm_row_scale",
    cpp_sources=scale_cpp_source,
    cuda_sources=scale_source,
    functions=["row_scale_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps
        self.row_scale = row_scale

    def forward(self, x):
        # expect: CL408
        normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.row_scale.row_scale_cuda(normed.contiguous(), self.weight)
