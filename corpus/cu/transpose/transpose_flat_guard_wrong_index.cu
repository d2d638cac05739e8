#include <cuda_runtime.h>

#define BLOCK_DIM 16

// Transpose a rows x cols matrix: out[j][i] = in[i][j]
__global__ void transpose_kernel(const float* in, float* out, int rows, int cols) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;   // column
    const int i = blockIdx.y * blockDim.y + threadIdx.y;   // row

    const int in_idx = i * cols + j;
    const int out_idx = j * rows + i;

    if (in_idx < rows * cols) {
        // expect: CL201
        out[out_idx] = in[in_idx];
    }
}

void launch_transpose(const float* in, float* out, int rows, int cols) {
    dim3 block(BLOCK_DIM, BLOCK_DIM);
    dim3 grid((cols + BLOCK_DIM - 1) / BLOCK_DIM, (rows + BLOCK_DIM - 1) / BLOCK_DIM);
    transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}
