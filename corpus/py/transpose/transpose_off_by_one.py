import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

transpose_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 16

__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r = blockIdx.y * TILE + threadIdx.y;
    if (r < rows && c < cols) {
        tile[threadIdx.y][threadIdx.x] = in[r * cols + c];
    }
    __syncthreads();

    int oc = blockIdx.y * TILE + threadIdx.x;
    int orow = blockIdx.x * TILE + threadIdx.y;
    // expect: CL202
    if (orow <= cols && oc < rows) {
        out[orow * rows + oc] = tile[threadIdx.x][threadIdx.y];
    }
}

torch::Tensor transpose_cuda(torch::Tensor in) {
    int rows = in.size(0);
    int cols = in.size(1);
    auto out = torch::empty({cols, rows}, in.options());
    dim3 block(TILE, TILE);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_kernel<<<grid, block>>>(in.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""

transpose_cpp_source = "torch::Tensor transpose_cuda(torch::Tensor in);"

transpose = load_inline(
    name="transpose_off_by_one",
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
