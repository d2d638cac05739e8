#include <cuda_runtime.h>

#define TILE 32

// Tiled SGEMM with double-buffered shared tiles: the next tile is loaded into the
// other buffer while the current one is consumed, so one barrier per step suffices.
__global__ void matmul_double_buffer_kernel(const float* __restrict__ A,
                                            const float* __restrict__ B,
                                            float* __restrict__ C,
                                            int M, int N, int K) {
    __shared__ float As[2][TILE][TILE];
    __shared__ float Bs[2][TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const int num_tiles = (K + TILE - 1) / TILE;

    // preload tile 0
    As[0][ty][tx] = (row < M && tx < K) ? A[row * K + tx] : 0.0f;
    Bs[0][ty][tx] = (ty < K && col < N) ? B[ty * N + col] : 0.0f;
    __syncthreads();

    float acc = 0.0f;
    int cur = 0;
    for (int t = 0; t < num_tiles; ++t) {
        const int nxt = cur ^ 1;
        if (t + 1 < num_tiles) {
            const int a_col = (t + 1) * TILE + tx;
            const int b_row = (t + 1) * TILE + ty;
            As[nxt][ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
            Bs[nxt][ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        }

        #pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[cur][ty][k] * Bs[cur][k][tx];
        }
        __syncthreads();
        cur = nxt;
    }

    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}

void launch_matmul_db(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 threads(TILE, TILE);
    dim3 blocks((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_double_buffer_kernel<<<blocks, threads>>>(A, B, C, M, N, K);
}
