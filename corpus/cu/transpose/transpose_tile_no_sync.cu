#include <cuda_runtime.h>

#define TILE_DIM 32

// Matrix transpose using shared memory for coalesced reads and writes
__global__ void transpose_shared_kernel(const float* __restrict__ input, float* __restrict__ output,
                                        int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    if (x < width && y < height) {
        tile[threadIdx.y][threadIdx.x] = input[y * width + x];
    }

    // write the transposed tile
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;

    if (x < height && y < width) {
        // expect: CL101
        output[y * height + x] = tile[threadIdx.x][threadIdx.y];
    }
}

void launch_transpose_shared(const float* input, float* output, int width, int height) {
    dim3 block(TILE_DIM, TILE_DIM);
    dim3 grid((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
    transpose_shared_kernel<<<grid, block>>>(input, output, width, height);
}
