import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

dwconv1d_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define BLOCK 256
#define KSIZE 3

// Depthwise conv1d, kernel 3, stride 1, no padding. x: [N, C, L], w: [C, 1, 3], y: [N, C, L - 2].
// blockIdx.y enumerates the (n, c) rows.
__global__ void dwconv1d_k3_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                   float* __restrict__ y, int C, int L, int Lout) {
    __shared__ float tile[BLOCK];
    const int row = blockIdx.y;
    const int c = row % C;
    const float* xr = x + (size_t)row * L;
    float* yr = y + (size_t)row * Lout;
    const float* wc = w + c * KSIZE;
    const int base = blockIdx.x * BLOCK;
    const int i = base + threadIdx.x;

    if (i < L) tile[threadIdx.x] = xr[i];
    // the first KSIZE-1 threads also fetch the right halo
    if (threadIdx.x < KSIZE - 1 && base + BLOCK + threadIdx.x < L) {
        // expect: CL203
        tile[BLOCK + threadIdx.x] = xr[base + BLOCK + threadIdx.x];
    }

    if (i < Lout) {
        float acc = 0.0f;
        for (int k = 0; k < KSIZE; ++k) {
            // expect: CL101, CL203
            acc += tile[threadIdx.x + k] * wc[k];
        }
        yr[i] = acc;
    }
}

torch::Tensor dwconv1d_cuda(torch::Tensor x, torch::Tensor w) {
    x = x.contiguous();
    const int N = x.size(0), C = x.size(1), L = x.size(2);
    const int Lout = L - KSIZE + 1;
    auto y = torch::empty({N, C, Lout}, x.options());
    dim3 grid((Lout + BLOCK - 1) / BLOCK, N * C);
    dwconv1d_k3_kernel<<<grid, BLOCK>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), C, L, Lout);
    return y;
}
"""

dwconv1d_cpp_source = "torch::Tensor dwconv1d_cuda(torch::Tensor x, torch::Tensor w);"

dwconv1d = load_inline(
    name="dwconv1d_halo",
    cpp_sources=dwconv1d_cpp_source,
    cuda_sources=dwconv1d_source,
    functions=["dwconv1d_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels, 1, 3) / 3 ** 0.5)
        self.dwconv1d = dwconv1d

    def forward(self, x):
        return self.dwconv1d.dwconv1d_cuda(x, self.weight.contiguous())
