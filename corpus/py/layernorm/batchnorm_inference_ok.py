import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

bn_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// Inference batch norm on NCHW: y = (x - mean[c]) * rsqrt(var[c] + eps) * w[c] + b[c]
__global__ void bn_inference_kernel(const float* __restrict__ x, const float* __restrict__ mean,
                                    const float* __restrict__ var, const float* __restrict__ w,
                                    const float* __restrict__ b, float* __restrict__ y,
                                    int64_t total, int C, int HW, float eps) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int c = (int)((i / HW) % C);
        const float inv_std = rsqrtf(var[c] + eps);
        y[i] = (x[i] - mean[c]) * inv_std * w[c] + b[c];
    }
}

torch::Tensor bn_inference_cuda(torch::Tensor x, torch::Tensor running_mean, torch::Tensor running_var,
                                torch::Tensor weight, torch::Tensor bias, double eps) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    const int64_t total = x.numel();
    const int C = x.size(1);
    const int HW = x.size(2) * x.size(3);
    const int threads = 256;
    int blocks = (int)((total + threads - 1) / threads);
    if (blocks > 4096) blocks = 4096;
    bn_inference_kernel<<<blocks, threads>>>(
        x.data_ptr<float>(), running_mean.data_ptr<float>(), running_var.data_ptr<float>(),
        weight.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(),
        total, C, HW, (float)eps);
    return y;
}
"""

bn_cpp_source = (
    "torch::Tensor bn_inference_cuda(torch::Tensor x, torch::Tensor running_mean, torch::Tensor running_var, "
    "torch::Tensor weight, torch::Tensor bias, double eps);"
)

bn_ext = load_inline(
    name="bn_inference",
    cpp_sources=bn_cpp_source,
    cuda_sources=bn_source,
    functions=["bn_inference_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.bn_ext = bn_ext

    def forward(self, x):
        return self.bn_ext.bn_inference_cuda(
            x, self.running_mean, self.running_var, self.weight, self.bias, self.eps
        )
