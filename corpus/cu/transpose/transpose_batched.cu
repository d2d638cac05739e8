#include <cuda_runtime.h>

#define TILE 32
#define ROWS_PER_PASS 8

// Batched transpose of the last two dims: [B, H, W] -> [B, W, H]; batch on gridDim.z.
__global__ void batched_transpose_kernel(const float* __restrict__ src, float* __restrict__ dst,
                                         int H, int W) {
    __shared__ float tile[TILE][TILE + 1];

    const size_t plane = (size_t)H * W;
    const float* in = src + blockIdx.z * plane;
    float* out = dst + blockIdx.z * plane;

    const int bx = blockIdx.x * TILE;
    const int by = blockIdx.y * TILE;

    for (int i = threadIdx.y; i < TILE; i += ROWS_PER_PASS) {
        const int r = by + i;
        const int c = bx + threadIdx.x;
        if (r < H && c < W) tile[i][threadIdx.x] = in[(size_t)r * W + c];
    }
    __syncthreads();

    for (int i = threadIdx.y; i < TILE; i += ROWS_PER_PASS) {
        const int r = bx + i;              // row in the output (= column in the input)
        const int c = by + threadIdx.x;    // column in the output
        if (r < W && c < H) out[(size_t)r * H + c] = tile[threadIdx.x][i];
    }
}

void launch_batched_transpose(const float* src, float* dst, int B, int H, int W) {
    dim3 block(TILE, ROWS_PER_PASS);
    dim3 grid((W + TILE - 1) / TILE, (H + TILE - 1) / TILE, B);
    batched_transpose_kernel<<<grid, block>>>(src, dst, H, W);
}
