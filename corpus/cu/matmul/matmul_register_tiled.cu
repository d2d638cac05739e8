#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4
#define THREADS_X (BN / TN)   // 16
#define THREADS_Y (BM / TM)   // 16
#define NUM_THREADS (THREADS_X * THREADS_Y)

// 2-D register-blocked SGEMM: each thread computes a TM x TN micro-tile.
__global__ void sgemm_register_tiled_kernel(const float* __restrict__ A,
                                            const float* __restrict__ B,
                                            float* __restrict__ C,
                                            int M, int N, int K) {
    __shared__ float As[BK][BM];   // stored transposed: As[k][m]
    __shared__ float Bs[BK][BN];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * THREADS_X + tx;
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;

    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; ++i)
        #pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        #pragma unroll
        for (int l = 0; l < (BM * BK) / NUM_THREADS; ++l) {
            const int e = tid + l * NUM_THREADS;
            const int m = e / BK;
            const int k = e % BK;
            const int gr = block_row + m;
            const int gc = k0 + k;
            As[k][m] = (gr < M && gc < K) ? A[gr * K + gc] : 0.0f;
        }
        #pragma unroll
        for (int l = 0; l < (BK * BN) / NUM_THREADS; ++l) {
            const int e = tid + l * NUM_THREADS;
            const int k = e / BN;
            const int n = e % BN;
            const int gr = k0 + k;
            const int gc = block_col + n;
            Bs[k][n] = (gr < K && gc < N) ? B[gr * N + gc] : 0.0f;
        }
        __syncthreads();

        #pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a_reg[TM], b_reg[TN];
            #pragma unroll
            for (int i = 0; i < TM; ++i) a_reg[i] = As[k][ty * TM + i];
            #pragma unroll
            for (int j = 0; j < TN; ++j) b_reg[j] = Bs[k][tx * TN + j];
            #pragma unroll
            for (int i = 0; i < TM; ++i)
                #pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a_reg[i] * b_reg[j];
        }
        __syncthreads();
    }

    #pragma unroll
    for (int i = 0; i < TM; ++i) {
        #pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int r = block_row + ty * TM + i;
            const int c = block_col + tx * TN + j;
            if (r < M && c < N) C[r * N + c] = acc[i][j];
        }
    }
}

void launch_sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(THREADS_X, THREADS_Y);
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    sgemm_register_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
