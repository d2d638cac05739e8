import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Fused (a + b) -> relu -> * c in a single pass instead of three kernels.
kernel_code = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void fused_add_relu_mul_kernel(const float* __restrict__ a,
                                          const float* __restrict__ b,
                                          const float* __restrict__ c,
                                          float* __restrict__ out,
                                          int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float s = a[idx] + b[idx];
        s = fmaxf(s, 0.0f);
        out[idx] = s * c[idx];
    }
}
"""

wrapper_code = """
torch::Tensor fused_add_relu_mul_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
    TORCH_CHECK(a.sizes() == b.sizes() && b.sizes() == c.sizes(), "shape mismatch");
    auto out = torch::empty_like(a);
    int n = a.numel();
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    fused_add_relu_mul_kernel<<<blocks, threads>>>(
        a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

fused_cpp = "torch::Tensor fused_add_relu_mul_cuda(torch::Tensor a, torch::Tensor b, torch::Tensor c);"

fused_ops = load_inline(
    name="fused_add_relu_mul",
    cpp_sources=fused_cpp,
    cuda_sources=kernel_code + wrapper_code,
    functions=["fused_add_relu_mul_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.fused_ops = fused_ops

    def forward(self, a, b, c):
        return self.fused_ops.fused_add_relu_mul_cuda(a.contiguous(), b.contiguous(), c.contiguous())
