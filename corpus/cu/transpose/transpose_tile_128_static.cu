#include <cuda_runtime.h>

#define TILE_DIM 128
#define BLOCK_ROWS 8

// Transpose with a 128x128 tile (padded), 128x8 threads per block, each thread moves 16 elements
__global__ void transpose_big_tile_kernel(const float* __restrict__ in, float* __restrict__ out,
                                          int width, int height) {
    // expect: CL301
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    }
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}

void launch_transpose_big_tile(const float* in, float* out, int width, int height) {
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
    transpose_big_tile_kernel<<<grid, block>>>(in, out, width, height);
}
