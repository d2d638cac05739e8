import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

bias_relu_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void bias_relu_kernel(const float* __restrict__ x, const float* __restrict__ bias,
                                 float* __restrict__ out, int64_t n, int channels, int hw) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int c = (int)((i / hw) % channels);
        float v = x[i];
        out[i] = (v > 0.0f ? v : 0.0f) + bias[c];
    }
}

torch::Tensor bias_relu_cuda(torch::Tensor x, torch::Tensor bias) {
    auto xc = x.contiguous();
    auto out = torch::empty_like(xc);
    int64_t n = xc.numel();
    int channels = xc.size(1);
    int hw = xc.size(2) * xc.size(3);
    const int threads = 256;
    const int blocks = (int)((n + threads - 1) / threads);
    bias_relu_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), bias.contiguous().data_ptr<float>(),
                                          out.data_ptr<float>(), n, channels, hw);
    return out;
}
"""

bias_relu_cpp_source = "torch::Tensor bias_relu_cuda(torch::Tensor x, torch::Tensor bias);"

bias_relu_ext = load_inline(
    name="bias_relu_ext",
    cpp_sources=bias_relu_cpp_source,
    cuda_sources=bias_relu_source,
    functions=["bias_relu_cuda"],
    verbose=False,
)

class BiasReLU(nn.Module):
    def __init__(self, bias_shape):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return bias_relu_ext.bias_relu_cuda(x, self.bias)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.tail = self._make_tail(BiasReLU, bias_shape)

    @staticmethod
    def _make_tail(block, bias_shape):
        layers = nn.ModuleList()
        layers.append(block(bias_shape))
        return layers

    def forward(self, x):
        x = self.conv(x)
        for layer in self.tail:
            x = layer(x)
        return x

batch_size = 16
in_channels = 3
out_channels = 16
height, width = 32, 32
kernel_size = 3
bias_shape = (out_channels, 1, 1)

def get_inputs():
    return [torch.randn(batch_size, in_channels, height, width)]

def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
