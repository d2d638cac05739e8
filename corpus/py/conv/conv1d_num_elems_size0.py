import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

conv1d_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void conv1d_kernel(const float* x, const float* w, const float* b, float* y,
                              int Cin, int L, int Cout, int K, int Lout, int total) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < total) {
        int t = idx % Lout;
        int co = (idx / Lout) % Cout;
        int n = idx / (Lout * Cout);
        float acc = b[co];
        for (int ci = 0; ci < Cin; ++ci) {
            for (int k = 0; k < K; ++k) {
                acc += x[(n * Cin + ci) * L + t + k] * w[(co * Cin + ci) * K + k];
            }
        }
        y[idx] = acc;
    }
}

torch::Tensor conv1d_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    int batch = x.size(0), Cin = x.size(1), L = x.size(2);
    int Cout = w.size(0), K = w.size(2);
    int Lout = L - K + 1;
    int total = batch * Cout * Lout;
    auto y = torch::empty({batch, Cout, Lout}, x.options());
    int threads = 256;
    int blocks = (batch * Lout + threads - 1) / threads;
    // expect: CL405
    conv1d_kernel<<<blocks, threads>>>(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
                                       y.data_ptr<float>(), Cin, L, Cout, K, Lout, total);
    return y;
}
"""

conv1d_cpp_source = "torch::Tensor conv1d_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b);"

conv1d = load_inline(
    name="conv1d_partial_launch",
    cpp_sources=conv1d_cpp_source,
    cuda_sources=conv1d_source,
    functions=["conv1d_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        conv = nn.Conv1d(in_channels, out_channels, kernel_size)
        self.weight = nn.Parameter(conv.weight.detach().clone())
        self.bias = nn.Parameter(conv.bias.detach().clone())
        self.conv1d = conv1d

    def forward(self, x):
        return self.conv1d.conv1d_cuda(x.contiguous(), self.weight, self.bias)
