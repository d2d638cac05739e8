#include <cuda_runtime.h>

// Naive transpose: out[c][r] = in[r][c] for a rows x cols input.
__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out,
                                       int rows, int cols) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        out[c * rows + r] = in[r * cols + c];
    }
}

void launch_transpose_naive(const float* in, float* out, int rows, int cols) {
    dim3 block(32, 8);
    dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    transpose_naive_kernel<<<grid, block>>>(in, out, rows, cols);
}
