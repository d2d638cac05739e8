import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gemm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 64
#define THREADS 256

__device__ __forceinline__ void load_tiles(const float* __restrict__ A, const float* __restrict__ B,
                                           float* As, float* Bs, int M, int N, int K,
                                           int row0, int col0, int k0, int tid) {
    for (int i = tid; i < TILE * TILE; i += THREADS) {
        const int r = i / TILE, c = i % TILE;
        const int ar = row0 + r, ac = k0 + c;
        As[i] = (ar < M && ac < K) ? A[(size_t)ar * K + ac] : 0.0f;
        const int br = k0 + r, bc = col0 + c;
        Bs[i] = (br < K && bc < N) ? B[(size_t)br * N + bc] : 0.0f;
    }
}

// blockDim = (16, 16); each thread owns a 4x4 patch of the 64x64 C tile.
// Two shared buffers (ping-pong) so that only one barrier per K step is needed.
__global__ void gemm_pingpong_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ C, int M, int N, int K) {
    extern __shared__ float smem[];
    float* As = smem;                    // [2][TILE * TILE]
    float* Bs = smem + 2 * TILE * TILE;  // [2][TILE * TILE]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * 16 + tx;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const int num_tiles = (K + TILE - 1) / TILE;
    float acc[4][4] = {};

    load_tiles(A, B, As, Bs, M, N, K, row0, col0, 0, tid);
    __syncthreads();

    for (int t = 0; t < num_tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < num_tiles) {
            load_tiles(A, B, As + (cur ^ 1) * TILE * TILE, Bs + (cur ^ 1) * TILE * TILE,
                       M, N, K, row0, col0, (t + 1) * TILE, tid);
        }
        const float* a = As + cur * TILE * TILE;
        const float* b = Bs + cur * TILE * TILE;
        for (int k = 0; k < TILE; ++k) {
            float av[4], bv[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) av[i] = a[(ty * 4 + i) * TILE + k];
            #pragma unroll
            for (int j = 0; j < 4; ++j) bv[j] = b[k * TILE + tx * 4 + j];
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }

    for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
            const int r = row0 + ty * 4 + i, c = col0 + tx * 4 + j;
            if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
        }
    }
}

torch::Tensor gemm_cuda(torch::Tensor A, torch::Tensor B) {
    A = A.contiguous();
    B = B.contiguous();
    const int M = A.size(0), K = A.size(1), N = B.size(1);
    auto C = torch::empty({M, N}, A.options());
    dim3 block(16, 16);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    const size_t smem_bytes = 4 * TILE * TILE * sizeof(float);
    // expect: CL301
    gemm_pingpong_kernel<<<grid, block, smem_bytes>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
    return C;
}
"""

gemm_cpp_source = "torch::Tensor gemm_cuda(torch::Tensor A, torch::Tensor B);"

gemm = load_inline(
    name="gemm_pingpong_64",
    cpp_sources=gemm_cpp_source,
    cuda_sources=gemm_source,
    functions=["gemm_cuda"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.gemm = gemm

    def forward(self, A, B):
        return self.gemm.gemm_cuda(A, B)
