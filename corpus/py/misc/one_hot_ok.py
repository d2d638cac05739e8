import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

one_hot_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// out is zero-initialised on the host side; each thread sets the single 1 of its row.
__global__ void one_hot_kernel(const int64_t* __restrict__ labels, float* __restrict__ out,
                               int n, int num_classes) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const int64_t c = labels[i];
        if (c >= 0 && c < num_classes) {
            out[(int64_t)i * num_classes + c] = 1.0f;
        }
    }
}

torch::Tensor one_hot_cuda(torch::Tensor labels, int64_t num_classes) {
    auto lab = labels.contiguous();
    const int n = lab.numel();
    auto out = torch::zeros({n, num_classes}, torch::dtype(torch::kFloat32).device(lab.device()));
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    one_hot_kernel<<<blocks, threads>>>(lab.data_ptr<int64_t>(), out.data_ptr<float>(), n, (int)num_classes);
    return out;
}
"""

one_hot_cpp_source = "torch::Tensor one_hot_cuda(torch::Tensor labels, int64_t num_classes);"

one_hot = load_inline(
    name="one_hot_float",
    cpp_sources=one_hot_cpp_source,
    cuda_sources=one_hot_source,
    functions=["one_hot_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_classes: int):
        super().__init__()
        self.num_classes = num_classes

    def forward(self, labels):
        return one_hot.one_hot_cuda(labels, self.num_classes)
