import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void block_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float sdata[256];
    unsigned int tid = threadIdx.x;
    unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (idx < n) ? x[idx] : 0.0f;

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            // expect: CL101
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        atomicAdd(out, sdata[0]);
    }
}

torch::Tensor sum_all_cuda(torch::Tensor x) {
    auto out = torch::zeros({1}, x.options());
    int n = x.numel();
    const int block_size = 256;
    const int num_blocks = (n + block_size - 1) / block_size;
    block_sum_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

sum_cpp_source = "torch::Tensor sum_all_cuda(torch::Tensor x);"

sum_all = load_inline(
    name="sum_all_missing_sync",
    cpp_sources=sum_cpp_source,
    cuda_sources=sum_source,
    functions=["sum_all_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.sum_all = sum_all

    def forward(self, x):
        return self.sum_all.sum_all_cuda(x.contiguous()).squeeze(0)
