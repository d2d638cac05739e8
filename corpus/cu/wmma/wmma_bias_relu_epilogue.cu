#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define WARPS_PER_BLOCK 4
#define TILE 16

// Linear layer on tensor cores: Y = relu(X * W + bias), one warp per 16x16 tile.
// Each warp stages its accumulator tile in its own slice of shared memory for the epilogue.
// Requires M, N, K to be multiples of 16.
__global__ void wmma_linear_bias_relu_kernel(const half* __restrict__ X,
                                             const half* __restrict__ W,
                                             const float* __restrict__ bias,
                                             float* __restrict__ Y,
                                             int M, int N, int K) {
    __shared__ __align__(32) float stage[WARPS_PER_BLOCK][TILE * TILE];

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int tiles_n = N / TILE;
    const int tile_id = blockIdx.x * WARPS_PER_BLOCK + warp;
    const int tile_row = (tile_id / tiles_n) * TILE;
    const int tile_col = (tile_id % tiles_n) * TILE;
    if (tile_row >= M) return;   // warp-uniform; no __syncthreads() below

    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> x_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> w_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(x_frag, X + tile_row * K + k, K);
        wmma::load_matrix_sync(w_frag, W + k * N + tile_col, N);
        wmma::mma_sync(acc, x_frag, w_frag, acc);
    }

    float* my_stage = stage[warp];
    wmma::store_matrix_sync(my_stage, acc, TILE, wmma::mem_row_major);
    __syncwarp();

    for (int e = lane; e < TILE * TILE; e += 32) {
        const int r = e / TILE, c = e % TILE;
        const int out_r = tile_row + r, out_c = tile_col + c;
        if (out_r < M && out_c < N) {
            const float v = my_stage[e] + bias[out_c];
            Y[out_r * N + out_c] = fmaxf(v, 0.0f);
        }
    }
}

void launch_linear_bias_relu(const half* X, const half* W, const float* bias, float* Y,
                             int M, int N, int K) {
    const int num_tiles = ((M + TILE - 1) / TILE) * ((N + TILE - 1) / TILE);
    const int blocks = (num_tiles + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK;
    wmma_linear_bias_relu_kernel<<<blocks, WARPS_PER_BLOCK * 32>>>(X, W, bias, Y, M, N, K);
}
