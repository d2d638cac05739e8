import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

histc_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define MAX_BINS 256

// torch.histc(x, bins, min, max): per-block histogram in shared memory, then one atomic per bin.
__global__ void histc_kernel(const float* __restrict__ x, float* __restrict__ hist, int64_t n,
                             int bins, float lo, float hi) {
    __shared__ unsigned int s_hist[MAX_BINS];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        s_hist[b] = 0u;
    }
    __syncthreads();

    const float inv_width = bins / (hi - lo);
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x) {
        const float v = x[i];
        if (v >= lo && v <= hi) {
            int b = (int)((v - lo) * inv_width);
            if (b >= bins) b = bins - 1;
            atomicAdd(&s_hist[b], 1u);
        }
    }
    __syncthreads();

    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        if (s_hist[b] > 0u) {
            atomicAdd(&hist[b], (float)s_hist[b]);
        }
    }
}

torch::Tensor histc_cuda(torch::Tensor x, int64_t bins, double lo, double hi) {
    TORCH_CHECK(bins > 0 && bins <= MAX_BINS, "bins must be in [1, 256]");
    x = x.contiguous();
    auto hist = torch::zeros({bins}, x.options());
    const int64_t n = x.numel();
    const int threads = 256;
    const int blocks = 264;  // a couple of blocks per SM; the loop is grid-stride
    histc_kernel<<<blocks, threads>>>(x.data_ptr<float>(), hist.data_ptr<float>(), n, (int)bins,
                                      (float)lo, (float)hi);
    return hist;
}
"""

histc_cpp_source = "torch::Tensor histc_cuda(torch::Tensor x, int64_t bins, double lo, double hi);"

histc = load_inline(
    name="histc_shared",
    cpp_sources=histc_cpp_source,
    cuda_sources=histc_source,
    functions=["histc_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, bins: int = 256, min_val: float = 0.0, max_val: float = 1.0):
        super().__init__()
        self.bins = bins
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x):
        return histc.histc_cuda(x, self.bins, self.min_val, self.max_val)
