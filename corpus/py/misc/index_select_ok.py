import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

index_select_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// out[k, :] = x[idx[k], :]   (torch.index_select(x, 0, idx)), flat grid-stride over K * D
__global__ void index_select_rows_kernel(const float* __restrict__ x, const int64_t* __restrict__ idx,
                                         float* __restrict__ out, int64_t K, int64_t D) {
    const int64_t total = K * D;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = i / D;
        const int64_t d = i - k * D;
        out[i] = x[idx[k] * D + d];
    }
}

torch::Tensor index_select_rows_cuda(torch::Tensor x, torch::Tensor idx) {
    auto xc = x.contiguous();
    auto ic = idx.contiguous();
    const int64_t K = ic.numel();
    const int64_t D = xc.numel() / xc.size(0);
    auto out = torch::empty({K, D}, xc.options());
    const int threads = 256;
    int64_t blocks = (K * D + threads - 1) / threads;
    if (blocks > 8192) blocks = 8192;
    index_select_rows_kernel<<<(unsigned int)blocks, threads>>>(xc.data_ptr<float>(), ic.data_ptr<int64_t>(),
                                                                 out.data_ptr<float>(), K, D);
    return out;
}
"""

index_select_cpp_source = "torch::Tensor index_select_rows_cuda(torch::Tensor x, torch::Tensor idx);"

index_select_ext = load_inline(
    name="index_select_rows",
    cpp_sources=index_select_cpp_source,
    cuda_sources=index_select_source,
    functions=["index_select_rows_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, idx):
        out = index_select_ext.index_select_rows_cuda(x, idx)
        return out.view(idx.numel(), *x.shape[1:])
