import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

rmsnorm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// one block per token, one thread per hidden element (hidden <= 1024)
__global__ void rmsnorm_kernel(const float* x, const float* weight, float* y, int hidden, float eps) {
    __shared__ float warp_sums[32];
    __shared__ float inv_rms;
    int tid = threadIdx.x;
    int lane = tid % 32;
    int warp = tid / 32;

    if (tid >= hidden) return;

    float v = x[blockIdx.x * hidden + tid];
    float sq = v * v;
    for (int offset = 16; offset > 0; offset >>= 1) {
        sq += __shfl_down_sync(0xffffffff, sq, offset);
    }
    if (lane == 0) warp_sums[warp] = sq;
    // expect: CL102
    __syncthreads();

    if (tid == 0) {
        float total = 0.0f;
        for (int w = 0; w < (hidden + 31) / 32; ++w) total += warp_sums[w];
        inv_rms = rsqrtf(total / hidden + eps);
    }
    // expect: CL102
    __syncthreads();

    y[blockIdx.x * hidden + tid] = v * inv_rms * weight[tid];
}

torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor weight, float eps) {
    auto y = torch::empty_like(x);
    int hidden = x.size(-1);
    int tokens = x.numel() / hidden;
    rmsnorm_kernel<<<tokens, 1024>>>(x.data_ptr<float>(), weight.data_ptr<float>(), y.data_ptr<float>(), hidden, eps);
    return y;
}
"""

rmsnorm_cpp_source = "torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor weight, float eps);"

rmsnorm = load_inline(
    name="rmsnorm_early_return",
    cpp_sources=rmsnorm_cpp_source,
    cuda_sources=rmsnorm_source,
    functions=["rmsnorm_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps
        self.rmsnorm = rmsnorm

    def forward(self, x):
        return self.rmsnorm.rmsnorm_cuda(x.contiguous(), self.weight, self.eps)
