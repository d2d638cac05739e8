#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define NUM_WARPS 8

// Tensor-core GEMM, 128x128 block tile; A/B tiles and the fp32 output tile live in
// dynamic shared memory.
__global__ void hgemm_128x128_kernel(const half* __restrict__ A, const half* __restrict__ B,
                                     float* __restrict__ C, int M, int N, int K) {
    extern __shared__ __align__(32) unsigned char shmem[];
    half* tileA = reinterpret_cast<half*>(shmem);
    half* tileB = tileA + BM * BK;
    float* tileC = reinterpret_cast<float*>(tileB + BK * BN);

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wm = warp / 2;   // 0..3 -> 32 rows each
    const int wn = warp % 2;   // 0..1 -> 64 cols each
    const int m0 = blockIdx.y * BM;
    const int n0 = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += NUM_WARPS * 32) {
            const int r = e / BK, c = e % BK;
            tileA[e] = (m0 + r < M && k0 + c < K) ? A[(m0 + r) * K + k0 + c] : __float2half(0.0f);
        }
        for (int e = tid; e < BK * BN; e += NUM_WARPS * 32) {
            const int r = e / BN, c = e % BN;
            tileB[e] = (k0 + r < K && n0 + c < N) ? B[(k0 + r) * N + n0 + c] : __float2half(0.0f);
        }
        __syncthreads();

        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[4];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], tileA + (wm * 32 + i * 16) * BK + kk, BK);
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], tileB + kk * BN + wn * 64 + j * 16, BN);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
            wmma::store_matrix_sync(tileC + (wm * 32 + i * 16) * BN + wn * 64 + j * 16, acc[i][j], BN,
                                    wmma::mem_row_major);
    __syncthreads();

    for (int e = tid; e < BM * BN; e += NUM_WARPS * 32) {
        const int r = e / BN, c = e % BN;
        if (m0 + r < M && n0 + c < N) C[(m0 + r) * N + n0 + c] = tileC[e];
    }
}

void launch_hgemm_128(const half* A, const half* B, float* C, int M, int N, int K) {
    size_t smem = BM * BK * sizeof(half) + BK * BN * sizeof(half) + BM * BN * sizeof(float);
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    // expect: CL301
    hgemm_128x128_kernel<<<grid, NUM_WARPS * 32, smem>>>(A, B, C, M, N, K);
}
