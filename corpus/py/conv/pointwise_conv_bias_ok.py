import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

pointwise_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// 1x1 convolution with bias: y[n, co, p] = b[co] + sum_ci w[co, ci] * x[n, ci, p], p over H*W.
// grid = (ceil(HW / 256), Cout, N): blockIdx.y / blockIdx.z pick the output plane.
__global__ void pointwise_conv_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ b, float* __restrict__ y,
                                      int Cin, int Cout, int HW) {
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    const int co = blockIdx.y;
    const int n = blockIdx.z;
    if (p >= HW) return;
    const float* xn = x + (size_t)n * Cin * HW;
    const float* wr = w + (size_t)co * Cin;
    float acc = b[co];
    for (int ci = 0; ci < Cin; ++ci) {
        acc += wr[ci] * xn[(size_t)ci * HW + p];
    }
    y[((size_t)n * Cout + co) * HW + p] = acc;
}

torch::Tensor pointwise_conv_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    TORCH_CHECK(x.is_cuda(), "x must be CUDA");
    x = x.contiguous();
    auto w2 = w.contiguous().view({w.size(0), w.size(1)});
    const int N = x.size(0), Cin = x.size(1), H = x.size(2), W = x.size(3);
    const int Cout = w2.size(0);
    const int HW = H * W;
    auto y = torch::empty({N, Cout, H, W}, x.options());
    dim3 block(256);
    dim3 grid((HW + 255) / 256, Cout, N);
    pointwise_conv_kernel<<<grid, block>>>(x.data_ptr<float>(), w2.data_ptr<float>(), b.data_ptr<float>(),
                                           y.data_ptr<float>(), Cin, Cout, HW);
    return y;
}
"""

pointwise_cpp_source = "torch::Tensor pointwise_conv_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b);"

pointwise = load_inline(
    name="pointwise_conv_bias",
    cpp_sources=pointwise_cpp_source,
    cuda_sources=pointwise_source,
    functions=["pointwise_conv_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=True)
        self.weight = nn.Parameter(conv.weight.detach().clone())
        self.bias = nn.Parameter(conv.bias.detach().clone())

    def forward(self, x):
        return pointwise.pointwise_conv_cuda(x, self.weight, self.bias)
