import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

naive_transpose_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
    }
}

torch::Tensor transpose_naive_cuda(torch::Tensor in) {
    in = in.contiguous();
    const int rows = in.size(0);
    const int cols = in.size(1);
    auto out = torch::empty({cols, rows}, in.options());
    const dim3 block(32, 8);
    const dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_naive_kernel<<<grid, block>>>(in.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""

naive_transpose = load_inline(
    name="transpose_naive",
    cpp_sources="torch::Tensor transpose_naive_cuda(torch::Tensor in);",
    cuda_sources=naive_transpose_source,
    functions=["transpose_naive_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return naive_transpose.transpose_naive_cuda(x)
