#include <cuda_runtime.h>

#define BLOCK_X 16
#define BLOCK_Y 16

// Naive GEMM, one thread per output element
__global__ void matmul_naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < M) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            // expect: CL201
            acc += A[row * K + k] * B[k * N + col];
        }
        // expect: CL201
        C[row * N + col] = acc;
    }
}

void launch_matmul_naive(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid((N + BLOCK_X - 1) / BLOCK_X, (M + BLOCK_Y - 1) / BLOCK_Y);
    matmul_naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
