import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

transpose_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE_DIM 32

__global__ void transpose_kernel(const float* input, float* output, int rows, int cols) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    if (x < cols && y < rows) {
        tile[threadIdx.y][threadIdx.x] = input[y * cols + x];
    }

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    if (x < rows && y < cols) {
        // expect: CL101
        output[y * rows + x] = tile[threadIdx.x][threadIdx.y];
    }
}

torch::Tensor transpose_cuda(torch::Tensor input) {
    int rows = input.size(0);
    int cols = input.size(1);
    auto output = torch::empty({cols, rows}, input.options());
    dim3 threads(TILE_DIM, TILE_DIM);
    dim3 blocks((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
    transpose_kernel<<<blocks, threads>>>(input.data_ptr<float>(), output.data_ptr<float>(), rows, cols);
    return output;
}
"""

transpose_cpp_source = "torch::Tensor transpose_cuda(torch::Tensor input);"

transpose = load_inline(
    name="transpose_missing_sync",
    cpp_sources=transpose_cpp_source,
    cuda_sources=transpose_source,
    functions=["transpose_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.transpose = transpose

    def forward(self, x):
        return self.transpose.transpose_cuda(x.contiguous())
