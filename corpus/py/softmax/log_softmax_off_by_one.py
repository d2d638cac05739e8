import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

log_softmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

__global__ void log_softmax_kernel(const float* __restrict__ input, float* __restrict__ output, int dim) {
    __shared__ float red[256];
    const int tid = threadIdx.x;
    const float* x = input + (size_t)blockIdx.x * dim;
    float* y = output + (size_t)blockIdx.x * dim;

    float m = -FLT_MAX;
    for (int i = tid; i < dim; i += blockDim.x) m = fmaxf(m, x[i]);
    red[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int i = tid; i < dim; i += blockDim.x) sum += expf(x[i] - m);
    red[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    const float lse = m + logf(red[0]);

    // expect: CL202
    for (int i = tid; i <= dim; i += blockDim.x) {
        y[i] = x[i] - lse;
    }
}

torch::Tensor log_softmax_cuda(torch::Tensor input) {
    auto x = input.contiguous();
    auto output = torch::empty_like(x);
    const int batch = x.size(0);
    const int dim = x.size(1);
    log_softmax_kernel<<<batch, 256>>>(x.data_ptr<float>(), output.data_ptr<float>(), dim);
    return output;
}
"""

log_softmax_cpp_source = "torch::Tensor log_softmax_cuda(torch::Tensor input);"

log_softmax = load_inline(
    name="log_softmax_off_by_one",
    cpp_sources=log_softmax_cpp_source,
    cuda_sources=log_softmax_source,
    functions=["log_softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim
        self.log_softmax = log_softmax

    def forward(self, x):
        return self.log_softmax.log_softmax_cuda(x)
