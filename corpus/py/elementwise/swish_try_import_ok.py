import torch
import torch.nn as nn

try:
    from torch.utils.cpp_extension import load_inline
except ImportError as exc:  # pragma: no cover - torch always ships cpp_extension
    raise RuntimeError("this solution needs torch.utils.cpp_extension") from exc

swish_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float sigmoidf(float v) {
    return 1.0f / (1.0f + __expf(-v));
}

__global__ void swish_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float v = x[idx];
        out[idx] = v * sigmoidf(v);
    }
}

torch::Tensor swish_cuda(torch::Tensor x) {
    auto out = torch::empty_like(x);
    int n = x.numel();
    const int block_size = 256;
    const int num_blocks = (n + block_size - 1) / block_size;
    swish_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

swish_cpp_source = "torch::Tensor swish_cuda(torch::Tensor x);"

swish = load_inline(
    name="swish_try_import",
    cpp_sources=swish_cpp_source,
    cuda_sources=swish_source,
    functions=["swish_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.swish = swish

    def forward(self, x):
        if not x.is_contiguous():
            x = x.contiguous()
        else:
            pass  # already laid out the way the kernel expects
        return self.swish.swish_cuda(x)
