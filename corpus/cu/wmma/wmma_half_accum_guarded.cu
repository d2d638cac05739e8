#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define WARPS_M 2
#define WARPS_N 4

// fp16-in / fp16-accumulate tensor-core GEMM (C = A * B^T, B stored [N x K] row-major,
// i.e. column-major K x N). One warp per 16x16 tile; M, N, K multiples of 16.
__global__ void hgemm_nt_kernel(const half* __restrict__ A, const half* __restrict__ B,
                                half* __restrict__ C, int M, int N, int K) {
    const int warp = threadIdx.x / 32;
    const int tile_m = blockIdx.y * WARPS_M + warp / WARPS_N;
    const int tile_n = blockIdx.x * WARPS_N + warp % WARPS_N;
    const int row = tile_m * 16;
    const int col = tile_n * 16;

    if (row < M && col < N) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
        wmma::fragment<wmma::accumulator, 16, 16, 16, half> c;
        wmma::fill_fragment(c, __float2half(0.0f));

        for (int k = 0; k < K; k += 16) {
            wmma::load_matrix_sync(a, A + row * K + k, K);
            wmma::load_matrix_sync(b, B + col * K + k, K);
            wmma::mma_sync(c, a, b, c);
        }
        wmma::store_matrix_sync(C + row * N + col, c, N, wmma::mem_row_major);
    }
}

void launch_hgemm_nt(const half* A, const half* B, half* C, int M, int N, int K) {
    dim3 block(WARPS_M * WARPS_N * 32);
    dim3 grid((N + 16 * WARPS_N - 1) / (16 * WARPS_N), (M + 16 * WARPS_M - 1) / (16 * WARPS_M));
    hgemm_nt_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
