import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

conv2d_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// x: [N, Cin, H, W], w: [Cout, Cin, KH, KW], stride 1, zero padding `pad`.
// grid = (ceil(OW / 16), ceil(OH / 16), N * Cout), block = (16, 16)
__global__ void conv2d_direct_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                     float* __restrict__ y, int Cin, int H, int W, int Cout,
                                     int KH, int KW, int pad, int OH, int OW) {
    const int ow = blockIdx.x * blockDim.x + threadIdx.x;
    const int oh = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = blockIdx.z / Cout;
    const int co = blockIdx.z % Cout;
    if (ow < OW && oh < OH) {
        float acc = 0.0f;
        for (int ci = 0; ci < Cin; ++ci) {
            for (int kh = 0; kh < KH; ++kh) {
                const int ih = oh + kh - pad;
                if (ih < 0 || ih >= H) continue;
                for (int kw = 0; kw < KW; ++kw) {
                    const int iw = ow + kw - pad;
                    if (iw < 0 || iw >= W) continue;
                    acc += x[(((size_t)n * Cin + ci) * H + ih) * W + iw] *
                           w[(((size_t)co * Cin + ci) * KH + kh) * KW + kw];
                }
            }
        }
        y[(((size_t)n * Cout + co) * OH + oh) * OW + ow] = acc;
    }
}

torch::Tensor conv2d_cuda(torch::Tensor x, torch::Tensor w, int64_t pad) {
    x = x.contiguous();
    w = w.contiguous();
    const int N = x.size(0), Cin = x.size(1), H = x.size(2), W = x.size(3);
    const int Cout = w.size(0), KH = w.size(2), KW = w.size(3);
    const int OH = H + 2 * pad - KH + 1;
    const int OW = W + 2 * pad - KW + 1;
    auto y = torch::empty({N, Cout, OH, OW}, x.options());
    dim3 block(16, 16);
    dim3 grid((OW + 15) / 16, (OH + 15) / 16, N * Cout);
    conv2d_direct_kernel<<<grid, block>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(),
                                          Cin, H, W, Cout, KH, KW, (int)pad, OH, OW);
    return y;
}
"""

conv2d_cpp_source = "torch::Tensor conv2d_cuda(torch::Tensor x, torch::Tensor w, int64_t pad);"

conv2d = load_inline(
    name="conv2d_direct",
    cpp_sources=conv2d_cpp_source,
    cuda_sources=conv2d_source,
    functions=["conv2d_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, padding=0):
        super(ModelNew, self).__init__()
        self.padding = padding
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels, kernel_size, kernel_size))
        nn.init.kaiming_uniform_(self.weight, a=5 ** 0.5)
        self.conv2d = conv2d

    def forward(self, x):
        return self.conv2d.conv2d_cuda(x, self.weight, self.padding)
