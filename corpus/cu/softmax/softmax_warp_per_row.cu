#include <cuda_runtime.h>
#include <math.h>

#define WARP_SIZE 32
#define WARPS_PER_BLOCK 8

__device__ __forceinline__ float warp_max(float v) {
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

// Softmax for short rows: one warp per row, no shared memory needed.
__global__ void softmax_warp_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    const int warp_id = threadIdx.x / WARP_SIZE;
    const int lane = threadIdx.x % WARP_SIZE;
    const int row = blockIdx.x * WARPS_PER_BLOCK + warp_id;
    if (row >= rows) return;  // whole warp exits together, no barriers below

    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    float m = -INFINITY;
    for (int j = lane; j < cols; j += WARP_SIZE) m = fmaxf(m, xr[j]);
    m = warp_max(m);

    float s = 0.0f;
    for (int j = lane; j < cols; j += WARP_SIZE) s += __expf(xr[j] - m);
    s = warp_sum(s);

    const float inv = 1.0f / s;
    for (int j = lane; j < cols; j += WARP_SIZE) yr[j] = __expf(xr[j] - m) * inv;
}

void launch_softmax_warp(const float* x, float* y, int rows, int cols) {
    dim3 block(WARP_SIZE * WARPS_PER_BLOCK);
    dim3 grid((rows + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
    softmax_warp_kernel<<<grid, block>>>(x, y, rows, cols);
}
