import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// One block per row, one thread per column (cols <= 1024).
__global__ void softmax_kernel(const float* x, float* y, int cols) {
    __shared__ float buf[1024];
    __shared__ float row_max;
    __shared__ float row_sum;
    int row = blockIdx.x;
    int tid = threadIdx.x;

    if (tid < cols) {
        float v = x[row * cols + tid];
        buf[tid] = v;
        // expect: CL102
        __syncthreads();

        if (tid == 0) {
            float m = buf[0];
            for (int i = 1; i < cols; ++i) m = fmaxf(m, buf[i]);
            float s = 0.0f;
            for (int i = 0; i < cols; ++i) s += expf(buf[i] - m);
            row_max = m;
            row_sum = s;
        }
        // expect: CL102
        __syncthreads();

        y[row * cols + tid] = expf(v - row_max) / row_sum;
    }
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int rows = x.size(0);
    int cols = x.size(1);
    softmax_kernel<<<rows, 1024>>>(x.data_ptr<float>(), y.data_ptr<float>(), cols);
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax = load_inline(
    name="softmax_sync_in_guard",
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

    def forward(self, x):
        return self.softmax.softmax_cuda(x.contiguous())
