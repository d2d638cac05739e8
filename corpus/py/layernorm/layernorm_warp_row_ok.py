import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

ln_kernel = """
#include <cuda_runtime.h>

// One warp per row; two-pass statistics entirely in registers and shuffles.
__global__ void layernorm_warp_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                      const float* __restrict__ beta, float* __restrict__ y,
                                      int rows, int hidden, float eps) {
    const int warps_per_block = blockDim.x / 32;
    const int row = blockIdx.x * warps_per_block + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row < rows) {
        const float* xr = x + (size_t)row * hidden;
        float* yr = y + (size_t)row * hidden;
        float s = 0.0f;
        for (int i = lane; i < hidden; i += 32) s += xr[i];
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
        const float mean = s / hidden;
        float v = 0.0f;
        for (int i = lane; i < hidden; i += 32) {
            const float d = xr[i] - mean;
            v += d * d;
        }
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
        const float rstd = rsqrtf(v / hidden + eps);
        for (int i = lane; i < hidden; i += 32) {
            yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
        }
    }
}
"""

ln_host = """
#include <torch/extension.h>

torch::Tensor layernorm_warp_cuda(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps) {
    auto xc = x.contiguous();
    const int hidden = gamma.numel();
    const int rows = xc.numel() / hidden;
    auto y = torch::empty_like(xc);
    const int threads = 256;  // 8 rows per block
    const int rows_per_block = threads / 32;
    const int blocks = (rows + rows_per_block - 1) / rows_per_block;
    layernorm_warp_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), gamma.data_ptr<float>(),
                                               beta.data_ptr<float>(), y.data_ptr<float>(),
                                               rows, hidden, static_cast<float>(eps));
    return y;
}
"""

ln_ext = load_inline(
    name="layernorm_warp_row",
    cpp_sources="torch::Tensor layernorm_warp_cuda(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps);",
    cuda_sources=ln_kernel + ln_host,
    functions=["layernorm_warp_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        self.ln_weight = nn.Parameter(torch.ones(normalized_shape))
        self.ln_bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps

    def forward(self, x):
        return ln_ext.layernorm_warp_cuda(x, self.ln_weight, self.ln_bias, self.eps)
