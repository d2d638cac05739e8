import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

mean_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// grid = (ceil(D / 256), B): each block reduces a 256-wide chunk of one row and
// accumulates chunk_sum / D into out[row].
__global__ void mean_dim1_kernel(const float* x, float* out, int D) {
    __shared__ float sdata[256];
    int row = blockIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int tid = threadIdx.x;

    if (col >= D) return;

    sdata[tid] = x[row * D + col];
    // expect: CL102
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        // expect: CL102
        __syncthreads();
    }

    if (tid == 0) {
        atomicAdd(&out[row], sdata[0] / D);
    }
}

torch::Tensor mean_dim1_cuda(torch::Tensor x) {
    int B = x.size(0);
    int D = x.size(1);
    auto out = torch::zeros({B}, x.options());
    dim3 threads(256);
    dim3 blocks((D + 255) / 256, B);
    mean_dim1_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), D);
    return out;
}
"""

mean_cpp_source = "torch::Tensor mean_dim1_cuda(torch::Tensor x);"

mean_dim1 = load_inline(
    name="mean_dim1_early_return",
    cpp_sources=mean_cpp_source,
    cuda_sources=mean_source,
    functions=["mean_dim1_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.mean_dim1 = mean_dim1

    def forward(self, x):
        return self.mean_dim1.mean_dim1_cuda(x.contiguous())
