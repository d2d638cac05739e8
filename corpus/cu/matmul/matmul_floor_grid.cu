#include <cuda_runtime.h>

#define TILE 16

// Tiled matmul with bounds-checked loads and stores
__global__ void matmul_kernel(const float* __restrict__ A, const float* __restrict__ B,
                              float* __restrict__ C, int M, int N, int K) {
    __shared__ float sA[TILE][TILE];
    __shared__ float sB[TILE][TILE];
    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;

    float sum = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        const int ac = t * TILE + threadIdx.x;
        const int br = t * TILE + threadIdx.y;
        sA[threadIdx.y][threadIdx.x] = (row < M && ac < K) ? A[row * K + ac] : 0.0f;
        sB[threadIdx.y][threadIdx.x] = (br < K && col < N) ? B[br * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += sA[threadIdx.y][k] * sB[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = sum;
}

void launch_matmul(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 threads(TILE, TILE);
    dim3 grid(N / TILE, M / TILE);
    // expect: CL204
    matmul_kernel<<<grid, threads>>>(A, B, C, M, N, K);
}
