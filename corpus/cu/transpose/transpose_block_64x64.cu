#include <cuda_runtime.h>

#define TILE_DIM 64

// Shared memory transpose with a larger 64x64 tile for more reuse per block
__global__ void transpose_tile64_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

void launch_transpose_tile64(const float* in, float* out, int width, int height) {
    dim3 threads(TILE_DIM, TILE_DIM);
    dim3 blocks((width + TILE_DIM - 1) / TILE_DIM, (height + TILE_DIM - 1) / TILE_DIM);
    // expect: CL302
    transpose_tile64_kernel<<<blocks, threads>>>(in, out, width, height);
}
