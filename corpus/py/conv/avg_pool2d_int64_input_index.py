import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# AvgPool2d, one thread per output element, over an input of 16 x 64 x 2048 x 2048 = 2^32 elements: the
# input index is computed in 64 bits.
cuda_source = """
#include <torch/extension.h>

__global__ void avg_pool2d_kernel(const float* input, float* output, int channels, int height, int width,
                                  int out_h, int out_w, int k, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    int ow = idx % out_w;
    int oh = (idx / out_w) % out_h;
    int nc = idx / (out_w * out_h);
    float sum = 0.0f;
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) {
            sum += input[((int64_t)nc * height + oh * k + i) * width + ow * k + j];
        }
    }
    output[idx] = sum / (k * k);
}

torch::Tensor avg_pool2d_cuda(torch::Tensor input, int k) {
    int batch = input.size(0);
    int channels = input.size(1);
    int height = input.size(2);
    int width = input.size(3);
    int out_h = height / k;
    int out_w = width / k;
    auto output = torch::empty({batch, channels, out_h, out_w}, input.options());
    int n = batch * channels * out_h * out_w;
    avg_pool2d_kernel<<<(n + 255) / 256, 256>>>(input.data_ptr<float>(), output.data_ptr<float>(), channels,
                                                height, width, out_h, out_w, k, n);
    return output;
}
"""

cpp_source = "torch::Tensor avg_pool2d_cuda(torch::Tensor input, int k);"

avg_pool = load_inline(name="avg_pool2d_int64_index", cpp_sources=cpp_source, cuda_sources=cuda_source,
                       functions=["avg_pool2d_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int):
        super().__init__()
        self.kernel_size = kernel_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return avg_pool.avg_pool2d_cuda(x, self.kernel_size)


batch_size = 16
channels = 64
height = 2048
width = 2048
kernel_size = 4


def get_inputs():
    return [torch.rand(batch_size, channels, height, width)]


def get_init_inputs():
    return [kernel_size]
