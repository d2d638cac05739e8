#include <cuda_runtime.h>

#define BM 128
#define BN 128
#define BK 64
#define TM 8
#define TN 8
#define NUM_THREADS ((BM / TM) * (BN / TN))   // 256

// Large-tile SGEMM, tiles of A and B staged in dynamic shared memory
__global__ void sgemm_128x128_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ C, int M, int N, int K) {
    extern __shared__ float smem[];
    float* As = smem;              // [BM][BK]
    float* Bs = smem + BM * BK;    // [BK][BN]

    const int tid = threadIdx.x;
    const int trow = tid / (BN / TN);
    const int tcol = tid % (BN / TN);
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;

    float acc[TM][TN] = {{0.0f}};

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += NUM_THREADS) {
            const int r = e / BK, c = e % BK;
            const int gr = block_row + r, gc = k0 + c;
            As[e] = (gr < M && gc < K) ? A[gr * K + gc] : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += NUM_THREADS) {
            const int r = e / BN, c = e % BN;
            const int gr = k0 + r, gc = block_col + c;
            Bs[e] = (gr < K && gc < N) ? B[gr * N + gc] : 0.0f;
        }
        __syncthreads();

        for (int k = 0; k < BK; ++k) {
            for (int i = 0; i < TM; ++i) {
                const float a = As[(trow * TM + i) * BK + k];
                for (int j = 0; j < TN; ++j) {
                    acc[i][j] += a * Bs[k * BN + tcol * TN + j];
                }
            }
        }
        __syncthreads();
    }

    for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < TN; ++j) {
            const int r = block_row + trow * TM + i;
            const int c = block_col + tcol * TN + j;
            if (r < M && c < N) C[r * N + c] = acc[i][j];
        }
    }
}

void launch_sgemm_128(const float* A, const float* B, float* C, int M, int N, int K) {
    const size_t smem_bytes = (BM * BK + BK * BN) * sizeof(float);  // 64 KB
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    // expect: CL301
    sgemm_128x128_kernel<<<grid, NUM_THREADS, smem_bytes>>>(A, B, C, M, N, K);
}
