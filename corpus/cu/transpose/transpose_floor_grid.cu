#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Tiled transpose (32x8 threads per 32x32 tile)
__global__ void transpose_kernel(float* __restrict__ odata, const float* __restrict__ idata,
                                 int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

void launch_transpose(float* odata, const float* idata, int width, int height) {
    dim3 dimGrid(width / TILE_DIM, height / TILE_DIM);
    dim3 dimBlock(TILE_DIM, BLOCK_ROWS);
    // expect: CL204
    transpose_kernel<<<dimGrid, dimBlock>>>(odata, idata, width, height);
}
