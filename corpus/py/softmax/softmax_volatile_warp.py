import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_src = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float sm[128];
    const int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;

    float m = -FLT_MAX;
    for (int i = tid; i < cols; i += blockDim.x) m = fmaxf(m, xr[i]);
    sm[tid] = m;
    __syncthreads();
    if (tid < 64) sm[tid] = fmaxf(sm[tid], sm[tid + 64]);
    __syncthreads();
    if (tid < 32) {
        volatile float* v = sm;
        for (int s = 32; s > 0; s >>= 1) {
            // expect: CL103
            v[tid] = fmaxf(v[tid], v[tid + s]);
        }
    }
    __syncthreads();
    const float row_max = sm[0];
    __syncthreads();

    float sum = 0.0f;
    for (int i = tid; i < cols; i += blockDim.x) sum += __expf(xr[i] - row_max);
    sm[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sm[tid] += sm[tid + s];
        __syncthreads();
    }
    const float inv = 1.0f / sm[0];
    for (int i = tid; i < cols; i += blockDim.x) yr[i] = __expf(xr[i] - row_max) * inv;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    x = x.contiguous();
    auto y = torch::empty_like(x);
    softmax_kernel<<<x.size(0), 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

softmax_cpp = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(
    name="softmax_volatile_max",
    cpp_sources=softmax_cpp,
    cuda_sources=softmax_src,
    functions=["softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax_ext = softmax_ext

    def forward(self, x):
        return self.softmax_ext.softmax_cuda(x)
