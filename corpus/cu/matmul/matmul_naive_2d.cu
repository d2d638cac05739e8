#include <cuda_runtime.h>

#define BLOCK_DIM 16

// Naive matrix multiplication, one output element per thread, C = A * B^T
// A: [M x K], B: [N x K] (row-major), C: [M x N]
__global__ void matmul_abt_kernel(const float* __restrict__ A,
                                  const float* __restrict__ B,
                                  float* __restrict__ C,
                                  int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[col * K + k];
        }
        C[row * N + col] = sum;
    }
}

void launch_matmul_abt(const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(BLOCK_DIM, BLOCK_DIM);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    matmul_abt_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
