import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

where_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void where_kernel(const bool* condition, const float* x, const float* y, float* out, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // expect: CL202
    if (idx <= size) {
        out[idx] = condition[idx] ? x[idx] : y[idx];
    }
}

torch::Tensor where_cuda(torch::Tensor condition, torch::Tensor x, torch::Tensor y) {
    auto size = x.numel();
    auto out = torch::empty_like(x);

    const int block_size = 256;
    const int num_blocks = size / block_size;

    // expect: CL204
    where_kernel<<<num_blocks, block_size>>>(condition.data_ptr<bool>(), x.data_ptr<float>(), y.data_ptr<float>(),
                                             out.data_ptr<float>(), size);

    return out;
}
"""

where_cpp_source = "torch::Tensor where_cuda(torch::Tensor condition, torch::Tensor x, torch::Tensor y);"

where = load_inline(
    name="where_off_by_one",
    cpp_sources=where_cpp_source,
    cuda_sources=where_source,
    functions=["where_cuda"],
    verbose=True,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.where = where

    def forward(self, condition, x, y):
        return self.where.where_cuda(condition, x, y)
