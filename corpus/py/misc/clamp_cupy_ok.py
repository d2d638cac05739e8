import torch
import torch.nn as nn

try:
    import cupy as cp
except ImportError:  # pragma: no cover
    cp = None

clamp_code = r'''
extern "C" __global__
void clamp_kernel(const float* __restrict__ x, float* __restrict__ y,
                  const float lo, const float hi, const long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)blockDim.x * gridDim.x;
    for (; i < n; i += stride) {
        y[i] = fminf(fmaxf(x[i], lo), hi);
    }
}
'''

clamp_kernel = cp.RawKernel(clamp_code, "clamp_kernel") if cp is not None else None


class ModelNew(nn.Module):
    def __init__(self, min_val: float = -0.5, max_val: float = 0.5):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        threads = 256
        blocks = min((n + threads - 1) // threads, 4096)
        with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
            clamp_kernel(
                (blocks,),
                (threads,),
                (cp.asarray(x), cp.asarray(y), cp.float32(self.min_val), cp.float32(self.max_val), cp.int64(n)),
            )
        return y
