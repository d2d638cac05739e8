import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

batchnorm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void batchnorm_inference_kernel(const float* x, const float* scale, const float* shift,
                                           float* y, int size, int C, int HW) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        int c = (idx / HW) % C;
        y[idx] = x[idx] * scale[c] + shift[c];
    }
}

torch::Tensor batchnorm_inference_cuda(torch::Tensor x, torch::Tensor scale, torch::Tensor shift) {
    auto y = torch::empty_like(x);
    int size = x.numel();
    int C = x.size(1);
    int HW = x.size(2) * x.size(3);
    const int block_size = 512;
    const int num_blocks = size / block_size;
    // expect: CL204
    batchnorm_inference_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), scale.data_ptr<float>(),
                                                          shift.data_ptr<float>(), y.data_ptr<float>(),
                                                          size, C, HW);
    return y;
}
"""

batchnorm_cpp_source = "torch::Tensor batchnorm_inference_cuda(torch::Tensor x, torch::Tensor scale, torch::Tensor shift);"

batchnorm = load_inline(
    name="batchnorm_inference_floor",
    cpp_sources=batchnorm_cpp_source,
    cuda_sources=batchnorm_source,
    functions=["batchnorm_inference_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.batchnorm = batchnorm

    def forward(self, x):
        # fold the statistics into a per-channel affine transform (setup only, O(C))
        scale = self.weight / torch.sqrt(self.running_var + self.eps)
        shift = self.bias - self.running_mean * scale
        return self.batchnorm.batchnorm_inference_cuda(x.contiguous(), scale.contiguous(), shift.contiguous())
