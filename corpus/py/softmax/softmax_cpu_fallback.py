import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_cuda_src = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float m = -FLT_MAX;
        for (int j = 0; j < cols; ++j) m = fmaxf(m, xr[j]);
        float s = 0.0f;
        for (int j = 0; j < cols; ++j) s += expf(xr[j] - m);
        for (int j = 0; j < cols; ++j) yr[j] = expf(xr[j] - m) / s;
    }
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int rows = x.size(0);
    const int cols = x.size(1);
    const int threads = 128;
    const int blocks = (rows + threads - 1) / threads;
    softmax_rows_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""

softmax_cpp_src = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(
    name="softmax_rows_fallback",
    cpp_sources=softmax_cpp_src,
    cuda_sources=softmax_cuda_src,
    functions=["softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax_ext = softmax_ext

    def forward(self, x):
        if not x.is_cuda or x.dim() != 2 or x.size(1) > 1024:
            # expect: CL408
            return torch.softmax(x, dim=-1)
        return self.softmax_ext.softmax_cuda(x.contiguous())
