import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

wmma_linear_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// Y (half, [M, N]) = X (half, [M, K]) @ W (half, [K, N]) + bias (float, [N])
// 128 threads = 4 warps laid out 2 x 2, so a block computes a 32 x 32 tile of Y.
__global__ void wmma_linear_kernel(const half* __restrict__ X, const half* __restrict__ W,
                                   const float* __restrict__ bias, half* __restrict__ Y,
                                   int M, int N, int K) {
    __shared__ __align__(32) float stage[4][16 * 16];  // one private 16x16 staging tile per warp
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int row0 = (blockIdx.y * 2 + warp / 2) * 16;
    const int col0 = (blockIdx.x * 2 + warp % 2) * 16;
    if (row0 >= M || col0 >= N) return;  // whole warp leaves together; no block barriers below

    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> x_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> w_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(x_frag, X + (size_t)row0 * K + k, K);
        wmma::load_matrix_sync(w_frag, W + (size_t)k * N + col0, N);
        wmma::mma_sync(acc, x_frag, w_frag, acc);
    }
    wmma::store_matrix_sync(stage[warp], acc, 16, wmma::mem_row_major);
    __syncwarp();

    // epilogue: bias add + fp16 conversion, 8 elements per lane
    for (int i = lane; i < 16 * 16; i += 32) {
        const int r = i / 16;
        const int c = i % 16;
        Y[(size_t)(row0 + r) * N + col0 + c] = __float2half(stage[warp][i] + bias[col0 + c]);
    }
}

torch::Tensor wmma_linear_cuda(torch::Tensor X, torch::Tensor W, torch::Tensor bias) {
    TORCH_CHECK(X.scalar_type() == torch::kHalf && W.scalar_type() == torch::kHalf, "X, W must be fp16");
    TORCH_CHECK(bias.scalar_type() == torch::kFloat32, "bias must be fp32");
    const int M = X.size(0), K = X.size(1), N = W.size(1);
    TORCH_CHECK(M % 16 == 0 && N % 16 == 0 && K % 16 == 0, "dims must be multiples of 16");
    auto Y = torch::empty({M, N}, X.options());
    dim3 block(128);
    dim3 grid((N + 31) / 32, (M + 31) / 32);
    wmma_linear_kernel<<<grid, block>>>(
        reinterpret_cast<const half*>(X.data_ptr<at::Half>()),
        reinterpret_cast<const half*>(W.data_ptr<at::Half>()),
        bias.data_ptr<float>(),
        reinterpret_cast<half*>(Y.data_ptr<at::Half>()),
        M, N, K);
    return Y;
}
"""

wmma_linear_cpp = "torch::Tensor wmma_linear_cuda(torch::Tensor X, torch::Tensor W, torch::Tensor bias);"

wmma_linear = load_inline(
    name="wmma_linear_half_out",
    cpp_sources=wmma_linear_cpp,
    cuda_sources=wmma_linear_source,
    functions=["wmma_linear_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        # stored pre-transposed ([in, out]) so the kernel reads W row-major
        self.weight = nn.Parameter(torch.randn(in_features, out_features) * (in_features ** -0.5))
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x):
        y = wmma_linear.wmma_linear_cuda(
            x.half().contiguous(), self.weight.half().contiguous(), self.bias.float().contiguous()
        )
        return y.float()
