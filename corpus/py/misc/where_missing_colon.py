import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

where_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void where_kernel(const bool* cond, const float* x, const float* y, float* out, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        out[idx] = cond[idx] ? x[idx] : y[idx];
    }
}

torch::Tensor where_cuda(torch::Tensor cond, torch::Tensor x, torch::Tensor y) {
    auto out = torch::empty_like(x);
    int n = x.numel();
    const int block_size = 256;
    const int num_blocks = (n + block_size - 1) / block_size;
    where_kernel<<<num_blocks, block_size>>>(cond.data_ptr<bool>(), x.data_ptr<float>(), y.data_ptr<float>(),
                                             out.data_ptr<float>(), n);
    return out;
}
"""

where_cpp_source = "torch::Tensor where_cuda(torch::Tensor cond, torch::Tensor x, torch::Tensor y);"

where_op = load_inline(
    name="where_missing_colon",
    cpp_sources=where_cpp_source,
    cuda_sources=where_source,
    functions=["where_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.where_op = where_op

    # expect: CL400
    def forward(self, cond, x, y)
        return self.where_op.where_cuda(cond.contiguous(), x.contiguous(), y.contiguous())
