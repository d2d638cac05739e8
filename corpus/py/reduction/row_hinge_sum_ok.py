import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Row-wise hinge terms summed per row: per-row targets read at the row of the flat index, a counted loop
# over the columns, a grid-stride scale. The file is its own reference problem (get_inputs).
source = """
__global__ void hinge_kernel(const float* pred, const float* targets, float* out, int n, int cols) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        out[idx] = fmaxf(0.0f, 1.0f - pred[idx] * targets[idx / cols]);
    }
}

__global__ void row_sum_kernel(const float* x, float* sums, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float acc = 0.0f;
    for (int k = 0; k < cols; ++k) acc += x[row * cols + k];
    sums[row] = acc;
}

__global__ void scale_kernel(const float* x, float* y, int n, float s) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = x[i] * s;
}

torch::Tensor row_hinge(torch::Tensor pred, torch::Tensor targets) {
    auto out = torch::empty_like(pred);
    int n = pred.numel();
    int rows = pred.size(0), cols = pred.size(1);
    hinge_kernel<<<(n + 255) / 256, 256>>>(pred.data_ptr<float>(), targets.data_ptr<float>(),
                                           out.data_ptr<float>(), n, cols);
    auto sums = torch::empty({rows}, pred.options());
    row_sum_kernel<<<(rows + 127) / 128, 128>>>(out.data_ptr<float>(), sums.data_ptr<float>(), rows, cols);
    auto scaled = torch::empty_like(targets);
    scale_kernel<<<8, 256>>>(targets.data_ptr<float>(), scaled.data_ptr<float>(), rows, 0.5f);
    return sums + scaled;
}
"""

hinge_ext = load_inline(name="row_hinge_ext", cpp_sources="torch::Tensor row_hinge(torch::Tensor pred, torch::Tensor targets);",
                        cuda_sources=source, functions=["row_hinge"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pred, targets):
        sums = hinge_ext.row_hinge(pred.contiguous(), targets.contiguous())
        return sums / pred.size(1)


def get_inputs():
    return [torch.randn(4096, 512), torch.randn(4096)]


def get_init_inputs():
    return []
