import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

relu_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void relu_inplace_kernel(float* __restrict__ x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] < 0.0f) {
        x[i] = 0.0f;
    }
}

torch::Tensor relu_inplace_cuda(torch::Tensor x) {
    int n = x.numel();
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    relu_inplace_kernel<<<blocks, threads>>>(x.data_ptr<float>(), n);
    return x;
}
"""

relu_cpp_source = "torch::Tensor relu_inplace_cuda(torch::Tensor x);"

relu_ext = load_inline(
    name="conv_relu_inplace",
    cpp_sources=relu_cpp_source,
    cuda_sources=relu_source,
    functions=["relu_inplace_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super(ModelNew, self).__init__()
        conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.weight = nn.Parameter(conv.weight.detach().clone())
        self.bias = nn.Parameter(conv.bias.detach().clone())
        self.relu_ext = relu_ext

    def forward(self, x):
        # expect: CL408
        x = F.conv2d(x, self.weight, self.bias)
        return self.relu_ext.relu_inplace_cuda(x.contiguous())
