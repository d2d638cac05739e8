import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scale_bias_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// y[i, j] = x[i, j] * scale[j] + bias[j]
__global__ void scale_bias_kernel(const float* x, const float* scale, const float* bias,
                                  float* y, int rows, int cols) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        int j = idx % cols;
        y[idx] = x[idx] * scale[j] + bias[j];
    }
}

torch::Tensor scale_bias_cuda(torch::Tensor x, torch::Tensor scale, torch::Tensor bias) {
    auto y = torch::empty_like(x);
    int rows = x.size(0);
    int cols = x.size(1);
    int threads = 256;
    int blocks = (rows * cols + threads - 1) / threads;
    scale_bias_kernel<<<blocks, threads>>>(x.data_ptr<float>(), scale.data_ptr<float>(),
                                           bias.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""

scale_bias_cpp_source = "torch::Tensor scale_bias_cuda(torch::Tensor x, torch::Tensor scale, torch::Tensor bias);"

scale_bias = load_inline(
    name="scale_bias_unused",
    cpp_sources=scale_bias_cpp_source,
    cuda_sources=scale_bias_source,
    functions=["scale_bias_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.scale_bias = scale_bias

    # expect: CL402
    def forward(self, x):
        # broadcast over the batch dimension
        # expect: CL403
        return x * self.scale + self.bias
