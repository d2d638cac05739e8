import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

argmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// x: [B, D1, D2] -> out: [B, D2] (int64), argmax over D1. One thread per output element.
__global__ void argmax_dim1_kernel(const float* __restrict__ x, int64_t* __restrict__ out,
                                   int B, int D1, int D2) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * D2) return;
    int b = idx / D2;
    int j = idx % D2;
    const float* base = x + (size_t)b * D1 * D2 + j;
    float best = base[0];
    int best_i = 0;
    for (int i = 1; i < D1; ++i) {
        float v = base[(size_t)i * D2];
        if (v > best) {
            best = v;
            best_i = i;
        }
    }
    out[idx] = best_i;
}

torch::Tensor argmax_dim1_cuda(torch::Tensor x) {
    TORCH_CHECK(x.dim() == 3, "expected [B, D1, D2]");
    x = x.contiguous();
    const int B = x.size(0), D1 = x.size(1), D2 = x.size(2);
    auto out = torch::empty({B, D2}, x.options().dtype(torch::kLong));
    const int threads = 256;
    const int blocks = (B * D2 + threads - 1) / threads;
    argmax_dim1_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<int64_t>(), B, D1, D2);
    return out;
}
"""

argmax_cpp_source = "torch::Tensor argmax_dim1_cuda(torch::Tensor x);"

argmax_ext = load_inline(
    name="argmax_dim1",
    cpp_sources=argmax_cpp_source,
    cuda_sources=argmax_source,
    functions=["argmax_dim1_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        assert dim == 1, "this kernel reduces over dim 1"
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return argmax_ext.argmax_dim1_cuda(x)
