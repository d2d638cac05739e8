import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scan_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// Inclusive scan of each row in shared memory (Hillis-Steele); cols <= 1024, one block per row.
__global__ void row_scan_kernel(const float* x, float* y, int cols) {
    __shared__ float temp[1024];
    int tid = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float* yr = y + blockIdx.x * cols;

    temp[tid] = (tid < cols) ? xr[tid] : 0.0f;

    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float val = 0.0f;
        if (tid >= offset) {
            // expect: CL101
            val = temp[tid - offset];
        }
        __syncthreads();
        temp[tid] += val;
        __syncthreads();
    }

    if (tid < cols) {
        yr[tid] = temp[tid];
    }
}

torch::Tensor row_scan_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int rows = x.size(0);
    int cols = x.size(1);
    TORCH_CHECK(cols <= 1024, "row too long");
    row_scan_kernel<<<rows, 1024>>>(x.data_ptr<float>(), y.data_ptr<float>(), cols);
    return y;
}
"""

scan_cpp_source = "torch::Tensor row_scan_cuda(torch::Tensor x);"

row_scan = load_inline(
    name="row_scan_missing_sync",
    cpp_sources=scan_cpp_source,
    cuda_sources=scan_source,
    functions=["row_scan_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.row_scan = row_scan

    def forward(self, x):
        return self.row_scan.row_scan_cuda(x.contiguous())
