import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

add_kernel_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void add_kernel(const float* a, const float* b, float* out, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // expect: CL201
    out[idx] = a[idx] + b[idx];
}

torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b) {
    auto out = torch::empty_like(a);
    int n = a.numel();
    const int block_size = 256;
    const int num_blocks = (n + block_size - 1) / block_size;
    add_kernel<<<num_blocks, block_size>>>(a.data_ptr<float>(), b.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

add_cpp_source = "torch::Tensor add_cuda(torch::Tensor a, torch::Tensor b);"

add_op = load_inline(
    name="add_unguarded",
    cpp_sources=[add_cpp_source],
    cuda_sources=[add_kernel_source],
    functions=["add_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.add_op = add_op

    def forward(self, a, b):
        return self.add_op.add_cuda(a, b)
