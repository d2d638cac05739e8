#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define THREADS 256   // 8 warps: 4 (rows) x 2 (cols), each warp owns a 32 x 64 sub-tile

// 128x128 block-tile tensor-core GEMM. The A/B stages plus the fp32 epilogue tile
// need 80 KB of shared memory, so the launcher opts in to the larger carve-out.
__global__ void wmma_gemm_128_kernel(const half* __restrict__ A,
                                     const half* __restrict__ B,
                                     float* __restrict__ C,
                                     int M, int N, int K) {
    extern __shared__ __align__(32) unsigned char smem_raw[];
    half* As = reinterpret_cast<half*>(smem_raw);          // [BM][BK]
    half* Bs = As + BM * BK;                                // [BK][BN]
    float* Cs = reinterpret_cast<float*>(Bs + BK * BN);     // [BM][BN]

    const int tid = threadIdx.x;
    const int warp = tid / 32;
    const int wr = warp / 2;
    const int wc = warp % 2;
    const int block_row = blockIdx.y * BM;
    const int block_col = blockIdx.x * BN;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag[2];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag[4];
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = tid; e < BM * BK; e += THREADS) {
            const int r = e / BK, c = e % BK;
            const int gr = block_row + r, gc = k0 + c;
            As[e] = (gr < M && gc < K) ? A[gr * K + gc] : __float2half(0.0f);
        }
        for (int e = tid; e < BK * BN; e += THREADS) {
            const int r = e / BN, c = e % BN;
            const int gr = k0 + r, gc = block_col + c;
            Bs[e] = (gr < K && gc < N) ? B[gr * N + gc] : __float2half(0.0f);
        }
        __syncthreads();

        for (int kk = 0; kk < BK; kk += 16) {
            for (int i = 0; i < 2; ++i)
                wmma::load_matrix_sync(a_frag[i], As + (wr * 32 + i * 16) * BK + kk, BK);
            for (int j = 0; j < 4; ++j)
                wmma::load_matrix_sync(b_frag[j], Bs + kk * BN + wc * 64 + j * 16, BN);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j)
                    wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
        }
        __syncthreads();
    }

    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
            wmma::store_matrix_sync(Cs + (wr * 32 + i * 16) * BN + wc * 64 + j * 16, acc[i][j], BN,
                                    wmma::mem_row_major);
    __syncthreads();

    for (int e = tid; e < BM * BN; e += THREADS) {
        const int r = e / BN, c = e % BN;
        const int gr = block_row + r, gc = block_col + c;
        if (gr < M && gc < N) C[gr * N + gc] = Cs[e];
    }
}

void launch_wmma_gemm_128(const half* A, const half* B, float* C, int M, int N, int K) {
    const int smem_bytes = (BM * BK + BK * BN) * sizeof(half) + BM * BN * sizeof(float);  // 80 KB
    cudaFuncSetAttribute(wmma_gemm_128_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    wmma_gemm_128_kernel<<<grid, THREADS, smem_bytes>>>(A, B, C, M, N, K);
}
