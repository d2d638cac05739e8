import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

conv_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void conv2d_kernel(const float* input, const float* weight, const float* bias, float* output,
                              int in_c, int in_h, int in_w, int out_c, int k, int out_h, int out_w) {
    int ow = blockIdx.x * blockDim.x + threadIdx.x;
    int oh = blockIdx.y * blockDim.y + threadIdx.y;
    int n = blockIdx.z / out_c;
    int oc = blockIdx.z % out_c;

    // expect: CL202
    if (ow <= out_w && oh < out_h) {
        float sum = bias[oc];
        for (int ic = 0; ic < in_c; ++ic) {
            for (int i = 0; i < k; ++i) {
                for (int j = 0; j < k; ++j) {
                    sum += input[((n * in_c + ic) * in_h + oh + i) * in_w + ow + j] *
                           weight[((oc * in_c + ic) * k + i) * k + j];
                }
            }
        }
        output[((n * out_c + oc) * out_h + oh) * out_w + ow] = sum;
    }
}

torch::Tensor conv2d_cuda(torch::Tensor input, torch::Tensor weight, torch::Tensor bias) {
    int batch = input.size(0), in_c = input.size(1), in_h = input.size(2), in_w = input.size(3);
    int out_c = weight.size(0), k = weight.size(2);
    int out_h = in_h - k + 1, out_w = in_w - k + 1;
    auto output = torch::empty({batch, out_c, out_h, out_w}, input.options());
    dim3 block(16, 16);
    dim3 grid((out_w + 15) / 16, (out_h + 15) / 16, batch * out_c);
    conv2d_kernel<<<grid, block>>>(input.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(),
                                   output.data_ptr<float>(), in_c, in_h, in_w, out_c, k, out_h, out_w);
    return output;
}
"""

conv_cpp_source = "torch::Tensor conv2d_cuda(torch::Tensor input, torch::Tensor weight, torch::Tensor bias);"

conv2d = load_inline(
    name="conv2d_off_by_one",
    cpp_sources=conv_cpp_source,
    cuda_sources=conv_source,
    functions=["conv2d_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.weight = nn.Parameter(conv.weight.detach().clone())
        self.bias = nn.Parameter(conv.bias.detach().clone())
        self.conv2d = conv2d

    def forward(self, x):
        return self.conv2d.conv2d_cuda(x.contiguous(), self.weight, self.bias)
