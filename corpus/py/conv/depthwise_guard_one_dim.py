import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

depthwise_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// valid (no padding) depthwise conv, stride 1. x: [N, C, H, W], w: [C, 1, K, K], y: [N, C, OH, OW]
__global__ void depthwise_conv2d_kernel(const float* x, const float* w, float* y,
                                        int C, int H, int W, int K, int OH, int OW) {
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    int nc = blockIdx.z;
    int c = nc % C;

    if (ox < OW) {
        float sum = 0.0f;
        for (int ky = 0; ky < K; ++ky) {
            for (int kx = 0; kx < K; ++kx) {
                // expect: CL201
                sum += x[((size_t)nc * H + oy + ky) * W + ox + kx] * w[(c * K + ky) * K + kx];
            }
        }
        // expect: CL201
        y[((size_t)nc * OH + oy) * OW + ox] = sum;
    }
}

torch::Tensor depthwise_conv2d_cuda(torch::Tensor x, torch::Tensor w) {
    int N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    int K = w.size(2);
    int OH = H - K + 1, OW = W - K + 1;
    auto y = torch::empty({N, C, OH, OW}, x.options());
    dim3 block(16, 16);
    dim3 grid((OW + 15) / 16, (OH + 15) / 16, N * C);
    depthwise_conv2d_kernel<<<grid, block>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(),
                                             C, H, W, K, OH, OW);
    return y;
}
"""

depthwise_cpp_source = "torch::Tensor depthwise_conv2d_cuda(torch::Tensor x, torch::Tensor w);"

depthwise_conv = load_inline(
    name="depthwise_guard_one_dim",
    cpp_sources=depthwise_cpp_source,
    cuda_sources=depthwise_source,
    functions=["depthwise_conv2d_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, kernel_size):
        super().__init__()
        conv = nn.Conv2d(in_channels, in_channels, kernel_size, groups=in_channels, bias=False)
        self.weight = nn.Parameter(conv.weight.detach().clone())
        self.depthwise_conv = depthwise_conv

    def forward(self, x):
        return self.depthwise_conv.depthwise_conv2d_cuda(x.contiguous(), self.weight.contiguous())
