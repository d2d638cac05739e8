import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

rmsnorm_source = """
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_sum(float v) {
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        v += __shfl_xor_sync(0xffffffff, v, off);
    }
    return v;
}

// y = x * rsqrt(mean(x^2) + eps) * weight, one block per token
__global__ void rmsnorm_kernel(const float* __restrict__ x, const float* __restrict__ weight,
                               float* __restrict__ y, int hidden, float eps) {
    __shared__ float warp_part[32];
    __shared__ float s_rstd;
    const int lane = threadIdx.x & 31;
    const int wid = threadIdx.x >> 5;
    const float* xr = x + (size_t)blockIdx.x * hidden;
    float* yr = y + (size_t)blockIdx.x * hidden;

    float ss = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
        const float v = xr[i];
        ss += v * v;
    }
    ss = warp_sum(ss);
    if (lane == 0) warp_part[wid] = ss;
    __syncthreads();
    if (wid == 0) {
        const int nwarps = blockDim.x >> 5;
        float t = lane < nwarps ? warp_part[lane] : 0.0f;
        t = warp_sum(t);
        if (lane == 0) s_rstd = rsqrtf(t / hidden + eps);
    }
    __syncthreads();
    const float rstd = s_rstd;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
        yr[i] = xr[i] * rstd * weight[i];
    }
}

torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor weight, double eps) {
    TORCH_CHECK(x.is_cuda() && weight.is_cuda(), "inputs must be CUDA tensors");
    auto xc = x.contiguous();
    const int hidden = xc.size(-1);
    const int tokens = xc.numel() / hidden;
    auto y = torch::empty_like(xc);
    auto stream = at::cuda::getCurrentCUDAStream();
    rmsnorm_kernel<<<tokens, 256, 0, stream>>>(xc.data_ptr<float>(), weight.data_ptr<float>(),
                                               y.data_ptr<float>(), hidden, (float)eps);
    return y;
}
"""

rmsnorm_cpp_source = "torch::Tensor rmsnorm_cuda(torch::Tensor x, torch::Tensor weight, double eps);"

rmsnorm_ext = load_inline(
    name="rmsnorm_warp",
    cpp_sources=rmsnorm_cpp_source,
    cuda_sources=rmsnorm_source,
    functions=["rmsnorm_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, hidden_size: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.eps = eps

    def forward(self, x):
        return rmsnorm_ext.rmsnorm_cuda(x, self.weight, self.eps)
