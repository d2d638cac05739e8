# A KernelBench-style solution as a model might write it: a row softmax through load_inline.
# It carries two bugs cudalint finds without compiling anything (run: cudalint check examples/).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__global__ void row_softmax_kernel(const float* x, float* out, int rows, int cols) {
    __shared__ float red[BLOCK_SIZE];
    int row = blockIdx.x;
    int tid = threadIdx.x;

    float local_max = -INFINITY;
    for (int c = tid; c < cols; c += blockDim.x) {
        local_max = fmaxf(local_max, x[row * cols + c]);
    }
    red[tid] = local_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();

    float local_sum = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        local_sum += __expf(x[row * cols + c] - row_max);
    }
    red[tid] = local_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] += red[tid + s];
            __syncthreads();
        }
    }
    float row_sum = red[0];

    for (int c = tid; c < cols; c += blockDim.x) {
        out[row * cols + c] = __expf(x[row * cols + c] - row_max) / row_sum;
    }
}

torch::Tensor row_softmax_cuda(torch::Tensor x) {
    auto out = torch::empty_like(x);
    int rows = x.size(0);
    int cols = x.size(1);
    row_softmax_kernel<<<rows, 2 * BLOCK_SIZE>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""

softmax_cpp_source = "torch::Tensor row_softmax_cuda(torch::Tensor x);"

row_softmax = load_inline(
    name="row_softmax",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["row_softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = row_softmax

    def forward(self, x):
        return self.softmax.row_softmax_cuda(x.contiguous())
