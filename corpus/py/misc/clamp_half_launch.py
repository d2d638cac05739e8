import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

clamp_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void clamp_kernel(const float* __restrict__ x, float* __restrict__ y, float lo, float hi, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        y[idx] = fminf(fmaxf(x[idx], lo), hi);
    }
}

torch::Tensor clamp_cuda(torch::Tensor x, float lo, float hi) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    // process the tensor as float2 pairs: half as many threads are needed
    const int threads = 256;
    const int blocks = (n / 2 + threads - 1) / threads;
    // expect: CL405
    clamp_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), lo, hi, n);
    return y;
}
"""

clamp_cpp_source = "torch::Tensor clamp_cuda(torch::Tensor x, float lo, float hi);"

clamp = load_inline(
    name="clamp_half_launch",
    cpp_sources=clamp_cpp_source,
    cuda_sources=clamp_source,
    functions=["clamp_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, min_val=-0.5, max_val=0.5):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val
        self.clamp = clamp

    def forward(self, x):
        return self.clamp.clamp_cuda(x.contiguous(), self.min_val, self.max_val)
