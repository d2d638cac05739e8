import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

layernorm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define BLOCK 256

__device__ float block_reduce_sum(float v, float* sbuf) {
    const int tid = threadIdx.x;
    sbuf[tid] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sbuf[tid] += sbuf[tid + s];
        }
        __syncthreads();
    }
    float total = sbuf[0];
    __syncthreads();  // sbuf is reused by the next call
    return total;
}

// y = (x - mean) / sqrt(var + eps) * gamma + beta, one block per row
__global__ void layernorm_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                 const float* __restrict__ beta, float* __restrict__ y,
                                 int hidden, float eps) {
    __shared__ float sbuf[BLOCK];
    const float* xr = x + (size_t)blockIdx.x * hidden;
    float* yr = y + (size_t)blockIdx.x * hidden;

    float s = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) s += xr[i];
    const float mean = block_reduce_sum(s, sbuf) / hidden;

    float sq = 0.0f;
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
        const float d = xr[i] - mean;
        sq += d * d;
    }
    const float var = block_reduce_sum(sq, sbuf) / hidden;
    const float rstd = rsqrtf(var + eps);

    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
        yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be CUDA");
    x = x.contiguous();
    const int hidden = gamma.numel();
    const int rows = x.numel() / hidden;
    auto y = torch::empty_like(x);
    layernorm_kernel<<<rows, BLOCK>>>(x.data_ptr<float>(), gamma.data_ptr<float>(), beta.data_ptr<float>(),
                                      y.data_ptr<float>(), hidden, static_cast<float>(eps));
    return y;
}
"""

layernorm_cpp_source = (
    "torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, double eps);"
)

layernorm = load_inline(
    name="layernorm_block",
    cpp_sources=layernorm_cpp_source,
    cuda_sources=layernorm_source,
    functions=["layernorm_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: int, eps: float = 1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps
        self.layernorm = layernorm

    def forward(self, x):
        return self.layernorm.layernorm_cuda(x, self.weight, self.bias, self.eps)
