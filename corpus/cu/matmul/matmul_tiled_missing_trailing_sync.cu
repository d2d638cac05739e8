#include <cuda_runtime.h>

#define TILE_WIDTH 32

// Shared memory tiled matrix multiplication C = A * B
__global__ void matmul_shared_kernel(const float* __restrict__ A,
                                     const float* __restrict__ B,
                                     float* __restrict__ C,
                                     int M, int N, int K) {
    __shared__ float tileA[TILE_WIDTH][TILE_WIDTH];
    __shared__ float tileB[TILE_WIDTH][TILE_WIDTH];

    int row = blockIdx.y * TILE_WIDTH + threadIdx.y;
    int col = blockIdx.x * TILE_WIDTH + threadIdx.x;
    float value = 0.0f;

    for (int ph = 0; ph < (K + TILE_WIDTH - 1) / TILE_WIDTH; ++ph) {
        // Load tiles into shared memory
        // expect: CL101
        tileA[threadIdx.y][threadIdx.x] = (row < M && ph * TILE_WIDTH + threadIdx.x < K) ? A[row * K + ph * TILE_WIDTH + threadIdx.x] : 0.0f;
        // expect: CL101
        tileB[threadIdx.y][threadIdx.x] = (col < N && ph * TILE_WIDTH + threadIdx.y < K) ? B[(ph * TILE_WIDTH + threadIdx.y) * N + col] : 0.0f;
        __syncthreads();

        // Compute partial dot product for this tile
        for (int k = 0; k < TILE_WIDTH; ++k) {
            value += tileA[threadIdx.y][k] * tileB[k][threadIdx.x];
        }
    }

    if (row < M && col < N) {
        C[row * N + col] = value;
    }
}

void launch_matmul_shared(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_WIDTH, TILE_WIDTH);
    dim3 grid((N + TILE_WIDTH - 1) / TILE_WIDTH, (M + TILE_WIDTH - 1) / TILE_WIDTH);
    matmul_shared_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
