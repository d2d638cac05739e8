#include <cuda_runtime.h>

#define WARP 32
#define ROWS_PER_BLOCK 8

// torch.cumsum(x, dim=1) for a (rows x cols) matrix: one warp per row, the row is walked in
// chunks of 32 with a shuffle-based scan and a running carry.
__global__ void cumsum_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    const int lane = threadIdx.x % WARP;
    const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / WARP;
    if (row >= rows) return;   // uniform per warp, no block barrier in this kernel

    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float carry = 0.0f;

    for (int base = 0; base < cols; base += WARP) {
        const int c = base + lane;
        float v = (c < cols) ? xr[c] : 0.0f;
        #pragma unroll
        for (int o = 1; o < WARP; o <<= 1) {
            const float t = __shfl_up_sync(0xffffffff, v, o);
            if (lane >= o) v += t;
        }
        v += carry;
        if (c < cols) yr[c] = v;
        carry = __shfl_sync(0xffffffff, v, WARP - 1);
    }
}

void launch_cumsum_rows(const float* x, float* y, int rows, int cols) {
    const int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    cumsum_rows_kernel<<<blocks, ROWS_PER_BLOCK * WARP>>>(x, y, rows, cols);
}
