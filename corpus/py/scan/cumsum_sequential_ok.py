import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cumsum_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// One thread per row: a plain running sum along the last dimension.
__global__ void cumsum_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float running = 0.0f;
        for (int j = 0; j < cols; ++j) {
            running += xr[j];
            yr[j] = running;
        }
    }
}

torch::Tensor cumsum_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int cols = xc.size(-1);
    const int rows = xc.numel() / cols;
    const int threads = 128;
    const int blocks = (rows + threads - 1) / threads;
    cumsum_rows_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""

cumsum_cpp_source = "torch::Tensor cumsum_cuda(torch::Tensor x);"

cumsum = load_inline(
    name="cumsum_sequential_rows",
    cpp_sources=cumsum_cpp_source,
    cuda_sources=cumsum_source,
    functions=["cumsum_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim
        self.cumsum = cumsum

    def forward(self, x):
        return self.cumsum.cumsum_cuda(x)
