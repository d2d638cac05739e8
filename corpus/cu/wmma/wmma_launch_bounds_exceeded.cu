#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// Tensor core matmul, one warp computes one 16x16 tile of C.
// M, N, K are multiples of 16.
__global__ void __launch_bounds__(128) wmma_matmul_kernel(const half* __restrict__ a,
                                                          const half* __restrict__ b,
                                                          float* __restrict__ c,
                                                          int M, int N, int K) {
    const int warp_global = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int tiles_n = N / 16;
    const int tm = warp_global / tiles_n;
    const int tn = warp_global % tiles_n;
    if (tm * 16 >= M) return;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);

    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, b + k * N + tn * 16, N);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(c + tm * 16 * N + tn * 16, fc, N, wmma::mem_row_major);
}

void launch_wmma_matmul(const half* a, const half* b, float* c, int M, int N, int K) {
    const int warps_per_block = 8;
    const int threads = warps_per_block * 32;
    const int total_tiles = ((M + 15) / 16) * ((N + 15) / 16);
    const int blocks = (total_tiles + warps_per_block - 1) / warps_per_block;
    // expect: CL302
    wmma_matmul_kernel<<<blocks, threads>>>(a, b, c, M, N, K);
}
