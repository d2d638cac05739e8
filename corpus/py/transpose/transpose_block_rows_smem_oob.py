import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

transpose_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < cols && y + j < rows) {
            // expect: CL203
            tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
        }
    }
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < rows && y + j < cols) {
            // expect: CL203
            out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

torch::Tensor transpose_cuda(torch::Tensor in) {
    int rows = in.size(0);
    int cols = in.size(1);
    auto out = torch::empty({cols, rows}, in.options());
    dim3 block(TILE_DIM, TILE_DIM);
    dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    transpose_kernel<<<grid, block>>>(in.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""

transpose_cpp_source = "torch::Tensor transpose_cuda(torch::Tensor in);"

transpose = load_inline(
    name="transpose_block_rows_mismatch",
    cpp_sources=transpose_cpp_source,
    cuda_sources=transpose_source,
    functions=["transpose_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.transpose = transpose

    def forward(self, x):
        return self.transpose.transpose_cuda(x.contiguous())
