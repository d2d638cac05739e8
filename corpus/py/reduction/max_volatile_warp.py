import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

max_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

#define THREADS 256

__global__ void max_lastdim_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    __shared__ float smax[THREADS];
    const int tid = threadIdx.x;
    const int row = blockIdx.x;

    float m = -FLT_MAX;
    for (int c = tid; c < cols; c += blockDim.x) {
        m = fmaxf(m, x[(size_t)row * cols + c]);
    }
    smax[tid] = m;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) {
            smax[tid] = fmaxf(smax[tid], smax[tid + s]);
        }
        __syncthreads();
    }

    // last warp: warp-synchronous, no barriers needed
    if (tid < 32) {
        volatile float* vs = smax;
        for (int s = 32; s > 0; s >>= 1) {
            // expect: CL103
            vs[tid] = fmaxf(vs[tid], vs[tid + s]);
        }
    }

    if (tid == 0) {
        out[row] = smax[0];
    }
}

torch::Tensor max_lastdim_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    const int cols = xc.size(1);
    const int rows = xc.size(0);
    auto out = torch::empty({rows}, xc.options());
    max_lastdim_kernel<<<rows, THREADS>>>(xc.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

max_cpp_source = "torch::Tensor max_lastdim_cuda(torch::Tensor x);"

max_ext = load_inline(
    name="max_lastdim_volatile",
    cpp_sources=max_cpp_source,
    cuda_sources=max_source,
    functions=["max_lastdim_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return max_ext.max_lastdim_cuda(x)
