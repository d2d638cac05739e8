import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "8.0;8.6;8.9;9.0")

relu_source = """
#include <torch/extension.h>

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

torch::Tensor relu_cuda(torch::Tensor x, int64_t threads) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    long n = xc.numel();
    relu_kernel<<<(n + threads - 1) / threads, threads>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

relu_ext = load_inline(name="relu_env_block", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x, int64_t threads);",
                       cuda_sources=relu_source, functions=["relu_cuda"], verbose=bool(os.environ.get("VERBOSE_BUILD")))


def _threads() -> int:
    wanted = int(os.environ.get("RELU_THREADS", "256"))
    return max(32, min(1024, wanted))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.threads = _threads()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return relu_ext.relu_cuda(x, self.threads)
