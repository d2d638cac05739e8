import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

#define THREADS 256

__global__ void softmax_kernel(const float* __restrict__ input, float* __restrict__ output,
                               int rows, int cols) {
    __shared__ float sdata[THREADS];
    const int row = blockIdx.x;
    if (row >= rows) return;  // uniform across the block
    const int tid = threadIdx.x;
    const float* x = input + (size_t)row * cols;
    float* y = output + (size_t)row * cols;

    // 1) row max
    float local_max = -FLT_MAX;
    for (int i = tid; i < cols; i += blockDim.x) {
        local_max = fmaxf(local_max, x[i]);
    }
    sdata[tid] = local_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] = fmaxf(sdata[tid], sdata[tid + s]);
        }
        __syncthreads();
    }
    const float row_max = sdata[0];
    __syncthreads();

    // 2) sum of exponentials
    float local_sum = 0.0f;
    for (int i = tid; i < cols; i += blockDim.x) {
        local_sum += __expf(x[i] - row_max);
    }
    sdata[tid] = local_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    const float inv_sum = 1.0f / sdata[0];

    // 3) normalize
    for (int i = tid; i < cols; i += blockDim.x) {
        y[i] = __expf(x[i] - row_max) * inv_sum;
    }
}

torch::Tensor softmax_cuda(torch::Tensor input) {
    TORCH_CHECK(input.dim() == 2, "softmax_cuda expects a 2D tensor");
    auto x = input.contiguous();
    auto output = torch::empty_like(x);
    const int rows = x.size(0);
    const int cols = x.size(1);
    softmax_kernel<<<rows, THREADS>>>(x.data_ptr<float>(), output.data_ptr<float>(), rows, cols);
    return output;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor input);"

softmax = load_inline(
    name="row_softmax",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["softmax_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.softmax = softmax

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.softmax.softmax_cuda(x)
