#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BLOCK_M 64
#define BLOCK_N 64
#define BLOCK_K 16
#define THREADS 512   // 16 warps in a 4 x 4 layout

// Tensor core GEMM with shared memory staging of the A and B tiles
__global__ void wmma_smem_gemm_kernel(const half* __restrict__ A, const half* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
    __shared__ __align__(32) half sA[BLOCK_M][BLOCK_K];
    __shared__ __align__(32) half sB[BLOCK_K][BLOCK_N];

    const int tid = threadIdx.x;
    const int warp_id = tid / 32;
    const int warp_row = warp_id / 4;
    const int warp_col = warp_id % 4;
    const int row0 = blockIdx.y * BLOCK_M;
    const int col0 = blockIdx.x * BLOCK_N;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_frag;
    wmma::fill_fragment(c_frag, 0.0f);

    for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
        // cooperative zero-padded load of the A and B tiles
        for (int i = tid; i < BLOCK_M * BLOCK_K; i += THREADS) {
            int r = i / BLOCK_K, c = i % BLOCK_K;
            sA[r][c] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * K + k0 + c] : __float2half(0.0f);
        }
        for (int i = tid; i < BLOCK_K * BLOCK_N; i += THREADS) {
            int r = i / BLOCK_N, c = i % BLOCK_N;
            sB[r][c] = (k0 + r < K && col0 + c < N) ? B[(k0 + r) * N + col0 + c] : __float2half(0.0f);
        }

        // expect: CL101
        wmma::load_matrix_sync(a_frag, &sA[warp_row * 16][0], BLOCK_K);
        // expect: CL101
        wmma::load_matrix_sync(b_frag, &sB[0][warp_col * 16], BLOCK_N);
        wmma::mma_sync(c_frag, a_frag, b_frag, c_frag);
        __syncthreads();
    }

    const int out_row = row0 + warp_row * 16;
    const int out_col = col0 + warp_col * 16;
    if (out_row < M && out_col < N) {
        wmma::store_matrix_sync(C + out_row * N + out_col, c_frag, N, wmma::mem_row_major);
    }
}

// M and N must be multiples of 16 (partial K tiles are zero-padded)
void launch_wmma_smem_gemm(const half* A, const half* B, float* C, int M, int N, int K) {
    dim3 grid((N + BLOCK_N - 1) / BLOCK_N, (M + BLOCK_M - 1) / BLOCK_M);
    wmma_smem_gemm_kernel<<<grid, THREADS>>>(A, B, C, M, N, K);
}
