#include <cuda_runtime.h>

#define TILE_X 32
#define TILE_Y 8

// out[r][c] = max(x[r][c] + bias[c], 0) for a row-major (rows x cols) matrix
__global__ void bias_relu_2d_kernel(const float* __restrict__ x,
                                    const float* __restrict__ bias,
                                    float* __restrict__ out,
                                    int rows, int cols) {
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row < rows && col < cols) {
        float v = x[row * cols + col] + bias[col];
        out[row * cols + col] = fmaxf(v, 0.0f);
    }
}

void launch_bias_relu_2d(const float* x, const float* bias, float* out, int rows, int cols) {
    dim3 block(TILE_X, TILE_Y);
    dim3 grid((cols + TILE_X - 1) / TILE_X, (rows + TILE_Y - 1) / TILE_Y);
    bias_relu_2d_kernel<<<grid, block>>>(x, bias, out, rows, cols);
}
