#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Coalesced matrix transpose through a padded shared-memory tile (avoids bank conflicts).
// idata: height x width (row-major), odata: width x height.
__global__ void transpose_coalesced_kernel(float* __restrict__ odata,
                                           const float* __restrict__ idata,
                                           int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < width && y + j < height) {
            tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
        }
    }
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;   // transposed block offset
    y = blockIdx.x * TILE_DIM + threadIdx.y;

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (x < height && y + j < width) {
            odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

void launch_transpose(float* odata, const float* idata, int width, int height) {
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
    transpose_coalesced_kernel<<<grid, block>>>(odata, idata, width, height);
}
