import cupy as cp
import torch
import torch.nn as nn

_relu_kernel = cp.RawKernel(r'''
extern "C" __global__
void relu_kernel(const float* x, float* y, const int n) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < n) {
        float v = x[tid];
        y[tid] = v > 0.0f ? v : 0.0f;
    }
}
''', 'relu_kernel')


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        threads = 256
        blocks = (n + threads - 1) // threads
        stream = cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream)
        with stream:
            _relu_kernel((blocks,), (threads,), (cp.asarray(x), cp.asarray(y), cp.int32(n)))
        return y
