#include <cuda_runtime.h>

#define TILE 16

// Shared-memory transpose where the block shape equals the tile shape (TILE x TILE threads),
// so threadIdx.x / threadIdx.y index the tile directly.
__global__ void transpose_smem_kernel(const float* __restrict__ A, float* __restrict__ At, int M, int N) {
    __shared__ float tile[TILE][TILE + 1];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;

    const int in_col = blockIdx.x * TILE + tx;
    const int in_row = blockIdx.y * TILE + ty;
    if (in_row < M && in_col < N) {
        tile[ty][tx] = A[in_row * N + in_col];
    }
    __syncthreads();

    const int out_col = blockIdx.y * TILE + tx;
    const int out_row = blockIdx.x * TILE + ty;
    if (out_row < N && out_col < M) {
        At[out_row * M + out_col] = tile[tx][ty];
    }
}

void launch_transpose_smem(const float* A, float* At, int M, int N) {
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    transpose_smem_kernel<<<grid, block>>>(A, At, M, N);
}
