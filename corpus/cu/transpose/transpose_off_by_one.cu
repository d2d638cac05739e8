#include <cuda_runtime.h>

// Transpose: output (N x M) = input (M x N)^T
__global__ void matrix_transpose_kernel(const float* __restrict__ input, float* __restrict__ output,
                                        int M, int N) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    // expect: CL202
    if (row <= M && col < N) {
        output[col * M + row] = input[row * N + col];
    }
}

void launch_matrix_transpose(const float* input, float* output, int M, int N) {
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    matrix_transpose_kernel<<<grid, block>>>(input, output, M, N);
}
