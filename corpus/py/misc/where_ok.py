import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

where_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void where_kernel(const bool* __restrict__ cond, const float* __restrict__ a,
                             const float* __restrict__ b, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = cond[i] ? a[i] : b[i];
    }
}

torch::Tensor where_cuda(torch::Tensor cond, torch::Tensor a, torch::Tensor b) {
    TORCH_CHECK(cond.scalar_type() == torch::kBool, "cond must be bool");
    TORCH_CHECK(cond.numel() == a.numel() && a.numel() == b.numel(), "no broadcasting in this kernel");
    auto c = cond.contiguous();
    auto ac = a.contiguous();
    auto bc = b.contiguous();
    auto out = torch::empty_like(ac);
    const int n = ac.numel();
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    where_kernel<<<blocks, threads>>>(c.data_ptr<bool>(), ac.data_ptr<float>(), bc.data_ptr<float>(),
                                      out.data_ptr<float>(), n);
    return out;
}
"""

where_cpp_source = "torch::Tensor where_cuda(torch::Tensor cond, torch::Tensor a, torch::Tensor b);"

where_ext = load_inline(
    name="where_select",
    cpp_sources=where_cpp_source,
    cuda_sources=where_source,
    functions=["where_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.where_ext = where_ext

    def forward(self, cond, a, b):
        return self.where_ext.where_cuda(cond, a, b)
