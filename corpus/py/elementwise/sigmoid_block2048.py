import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sigmoid_cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void sigmoid_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        out[idx] = 1.0f / (1.0f + __expf(-x[idx]));
    }
}

torch::Tensor sigmoid_cuda(torch::Tensor x) {
    auto out = torch::empty_like(x);
    int n = x.numel();
    // larger blocks -> fewer blocks to schedule
    const int block_size = 2048;
    const int num_blocks = (n + block_size - 1) / block_size;
    // expect: CL302
    sigmoid_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

sigmoid_cpp_source = "torch::Tensor sigmoid_cuda(torch::Tensor x);"

sigmoid_module = load_inline(
    name="sigmoid_big_block",
    cpp_sources=sigmoid_cpp_source,
    cuda_sources=sigmoid_cuda_source,
    functions=["sigmoid_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3", "--use_fast_math"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.sigmoid_module = sigmoid_module

    def forward(self, x):
        return self.sigmoid_module.sigmoid_cuda(x)
