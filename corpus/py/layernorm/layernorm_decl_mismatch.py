import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

layernorm_cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void layernorm_kernel(const float* x, const float* gamma, const float* beta, float* y,
                                 int N, float eps) {
    __shared__ float s_sum[256];
    __shared__ float s_sq[256];
    int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * N;
    float* yr = y + (size_t)blockIdx.x * N;

    float sum = 0.0f, sq = 0.0f;
    for (int i = tid; i < N; i += blockDim.x) {
        float v = xr[i];
        sum += v;
        sq += v * v;
    }
    s_sum[tid] = sum;
    s_sq[tid] = sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s_sum[tid] += s_sum[tid + s];
            s_sq[tid] += s_sq[tid + s];
        }
        __syncthreads();
    }
    float mean = s_sum[0] / N;
    float var = s_sq[0] / N - mean * mean;
    float rstd = rsqrtf(var + eps);
    for (int i = tid; i < N; i += blockDim.x) {
        yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta, float eps) {
    auto y = torch::empty_like(x);
    int N = gamma.numel();
    int rows = x.numel() / N;
    layernorm_kernel<<<rows, 256>>>(x.data_ptr<float>(), gamma.data_ptr<float>(), beta.data_ptr<float>(),
                                    y.data_ptr<float>(), N, eps);
    return y;
}
"""

layernorm_cpp_source = "torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor gamma, torch::Tensor beta);"

layernorm = load_inline(
    name="layernorm_decl_mismatch",
    cpp_sources=layernorm_cpp_source,
    cuda_sources=layernorm_cuda_source,
    # expect: CL401
    functions=["layernorm_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(normalized_shape))
        self.beta = nn.Parameter(torch.zeros(normalized_shape))
        self.eps = eps
        self.layernorm = layernorm

    def forward(self, x):
        return self.layernorm.layernorm_cuda(x.contiguous(), self.gamma, self.beta, self.eps)
