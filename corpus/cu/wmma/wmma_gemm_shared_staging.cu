#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BLOCK_M 32
#define BLOCK_N 32
#define BLOCK_K 16
#define THREADS 128   // 4 warps in a 2 x 2 layout

// Tensor-core GEMM with zero-padded shared-memory staging, so arbitrary M, N, K work.
__global__ void wmma_staged_gemm_kernel(const half* __restrict__ A,
                                        const half* __restrict__ B,
                                        float* __restrict__ C,
                                        int M, int N, int K) {
    __shared__ __align__(32) half As[BLOCK_M][BLOCK_K];
    __shared__ __align__(32) half Bs[BLOCK_K][BLOCK_N];
    __shared__ __align__(32) float Cs[BLOCK_M][BLOCK_N];

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wr = warp / 2;
    const int wc = warp % 2;
    const int block_row = blockIdx.y * BLOCK_M;
    const int block_col = blockIdx.x * BLOCK_N;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
        for (int e = tid; e < BLOCK_M * BLOCK_K; e += THREADS) {
            const int r = e / BLOCK_K, c = e % BLOCK_K;
            const int gr = block_row + r, gc = k0 + c;
            As[r][c] = (gr < M && gc < K) ? A[gr * K + gc] : __float2half(0.0f);
        }
        for (int e = tid; e < BLOCK_K * BLOCK_N; e += THREADS) {
            const int r = e / BLOCK_N, c = e % BLOCK_N;
            const int gr = k0 + r, gc = block_col + c;
            Bs[r][c] = (gr < K && gc < N) ? B[gr * N + gc] : __float2half(0.0f);
        }
        __syncthreads();

        wmma::load_matrix_sync(a_frag, &As[wr * 16][0], BLOCK_K);
        wmma::load_matrix_sync(b_frag, &Bs[0][wc * 16], BLOCK_N);
        wmma::mma_sync(acc, a_frag, b_frag, acc);
        __syncthreads();
    }

    wmma::store_matrix_sync(&Cs[wr * 16][wc * 16], acc, BLOCK_N, wmma::mem_row_major);
    __syncthreads();

    for (int e = tid; e < BLOCK_M * BLOCK_N; e += THREADS) {
        const int r = e / BLOCK_N, c = e % BLOCK_N;
        const int gr = block_row + r, gc = block_col + c;
        if (gr < M && gc < N) C[gr * N + gc] = Cs[r][c];
    }
}

void launch_wmma_staged_gemm(const half* A, const half* B, float* C, int M, int N, int K) {
    dim3 grid((N + BLOCK_N - 1) / BLOCK_N, (M + BLOCK_M - 1) / BLOCK_M);
    wmma_staged_gemm_kernel<<<grid, THREADS>>>(A, B, C, M, N, K);
}
