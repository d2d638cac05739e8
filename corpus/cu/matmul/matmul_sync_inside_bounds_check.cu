#include <cuda_runtime.h>

#define TILE_SIZE 16

// Tiled GEMM; out-of-range threads skip all the work
__global__ void gemm_tiled_kernel(const float* __restrict__ A,
                                  const float* __restrict__ B,
                                  float* __restrict__ C,
                                  int M, int N, int K) {
    __shared__ float As[TILE_SIZE][TILE_SIZE];
    __shared__ float Bs[TILE_SIZE][TILE_SIZE];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE_SIZE + ty;
    const int col = blockIdx.x * TILE_SIZE + tx;

    if (row < M && col < N) {
        float sum = 0.0f;
        for (int t = 0; t < (K + TILE_SIZE - 1) / TILE_SIZE; ++t) {
            const int ak = t * TILE_SIZE + tx;
            const int bk = t * TILE_SIZE + ty;
            As[ty][tx] = (ak < K) ? A[row * K + ak] : 0.0f;
            Bs[ty][tx] = (bk < K) ? B[bk * N + col] : 0.0f;
            // expect: CL102
            __syncthreads();
            for (int k = 0; k < TILE_SIZE; ++k) {
                sum += As[ty][k] * Bs[k][tx];
            }
            // expect: CL102
            __syncthreads();
        }
        C[row * N + col] = sum;
    }
}

void launch_gemm_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(TILE_SIZE, TILE_SIZE);
    dim3 grid((N + TILE_SIZE - 1) / TILE_SIZE, (M + TILE_SIZE - 1) / TILE_SIZE);
    gemm_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
