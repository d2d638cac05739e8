#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16
#define WARP_SIZE 32

// Tensor-core GEMM, one warp per 16x16 output tile.
// A: [M x K] half row-major, B: [K x N] half row-major, C: [M x N] float.
// Requires M, N, K to be multiples of 16.
__global__ void wmma_gemm_kernel(const half* __restrict__ A,
                                 const half* __restrict__ B,
                                 float* __restrict__ C,
                                 int M, int N, int K) {
    const int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    const int warpN = blockIdx.y * blockDim.y + threadIdx.y;
    const int a_row = warpM * WMMA_M;
    const int b_col = warpN * WMMA_N;

    // warp-uniform bounds check; no block barriers follow
    if (a_row >= M || b_col >= N) return;

    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
    wmma::fill_fragment(acc_frag, 0.0f);

    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(a_frag, A + a_row * K + k, K);
        wmma::load_matrix_sync(b_frag, B + k * N + b_col, N);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }

    wmma::store_matrix_sync(C + a_row * N + b_col, acc_frag, N, wmma::mem_row_major);
}

void launch_wmma_gemm(const half* A, const half* B, float* C, int M, int N, int K) {
    dim3 block(128, 4);   // 4 x 4 warps -> 64 x 64 outputs per block
    dim3 grid((M + (WMMA_M * block.x / WARP_SIZE) - 1) / (WMMA_M * block.x / WARP_SIZE),
              (N + WMMA_N * block.y - 1) / (WMMA_N * block.y));
    wmma_gemm_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
