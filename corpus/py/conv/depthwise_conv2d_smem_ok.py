import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

depthwise_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 16
#define KS 3
#define PAD 1
#define SMEM_DIM (TILE + KS - 1)

// Depthwise 3x3, stride 1, padding 1. Each block stages an 18x18 input tile (with halo) in
// shared memory and produces a 16x16 output tile of one (n, c) plane.
__global__ void depthwise3x3_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    float* __restrict__ y, int C, int H, int W) {
    __shared__ float tile[SMEM_DIM][SMEM_DIM];
    const int nc = blockIdx.z;
    const int c = nc % C;
    const int ox0 = blockIdx.x * TILE;
    const int oy0 = blockIdx.y * TILE;
    const float* xp = x + (size_t)nc * H * W;
    const int tid = threadIdx.y * TILE + threadIdx.x;

    for (int i = tid; i < SMEM_DIM * SMEM_DIM; i += TILE * TILE) {
        const int ty = i / SMEM_DIM;
        const int tx = i % SMEM_DIM;
        const int iy = oy0 + ty - PAD;
        const int ix = ox0 + tx - PAD;
        tile[ty][tx] = (iy >= 0 && iy < H && ix >= 0 && ix < W) ? xp[iy * W + ix] : 0.0f;
    }
    __syncthreads();

    const int ox = ox0 + threadIdx.x;
    const int oy = oy0 + threadIdx.y;
    if (ox < W && oy < H) {
        const float* wc = w + c * KS * KS;
        float acc = 0.0f;
        #pragma unroll
        for (int ky = 0; ky < KS; ++ky) {
            #pragma unroll
            for (int kx = 0; kx < KS; ++kx) {
                acc += tile[threadIdx.y + ky][threadIdx.x + kx] * wc[ky * KS + kx];
            }
        }
        y[(size_t)nc * H * W + oy * W + ox] = acc;
    }
}

torch::Tensor depthwise3x3_cuda(torch::Tensor x, torch::Tensor w) {
    TORCH_CHECK(w.size(2) == KS && w.size(3) == KS, "kernel must be 3x3");
    x = x.contiguous();
    w = w.contiguous();
    const int N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    auto y = torch::empty_like(x);
    dim3 block(TILE, TILE);
    dim3 grid((W + TILE - 1) / TILE, (H + TILE - 1) / TILE, N * C);
    depthwise3x3_kernel<<<grid, block>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), C, H, W);
    return y;
}
"""

depthwise_cpp_source = "torch::Tensor depthwise3x3_cuda(torch::Tensor x, torch::Tensor w);"

depthwise = load_inline(
    name="depthwise3x3_smem",
    cpp_sources=depthwise_cpp_source,
    cuda_sources=depthwise_source,
    functions=["depthwise3x3_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        conv = nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False)
        self.weight = nn.Parameter(conv.weight.detach().clone())  # [C, 1, 3, 3]
        self.depthwise = depthwise

    def forward(self, x):
        return self.depthwise.depthwise3x3_cuda(x, self.weight)
