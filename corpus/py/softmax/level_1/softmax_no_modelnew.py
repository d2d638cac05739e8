# expect: CL400
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    const int lane = threadIdx.x;  // one warp per row
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int i = lane; i < cols; i += 32) m = fmaxf(m, xr[i]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    float s = 0.0f;
    for (int i = lane; i < cols; i += 32) s += __expf(xr[i] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    for (int i = lane; i < cols; i += 32) yr[i] = __expf(xr[i] - m) / s;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    softmax_kernel<<<x.size(0), 32>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax = load_inline(
    name="softmax_warp_row",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["softmax_cuda"],
    verbose=False,
)


class Model(nn.Module):
    """
    Simple model that performs a Softmax activation, now backed by a custom CUDA kernel.
    """

    def __init__(self):
        super(Model, self).__init__()
        self.softmax = softmax

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.softmax.softmax_cuda(x)
