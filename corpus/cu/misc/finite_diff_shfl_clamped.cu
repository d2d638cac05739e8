#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Forward difference d[i] = x[i + 1] - x[i] (0 for the last element). The neighbour comes
// from a warp shuffle; the load index is clamped so every lane takes part in the shuffle.
__global__ void diff_shfl_kernel(const float* __restrict__ x, float* __restrict__ d, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;

    const float v = x[min(i, n - 1)];
    const float next_in_warp = __shfl_down_sync(0xffffffff, v, 1);

    if (i < n) {
        float nxt = v;
        if (i + 1 < n) {
            nxt = (lane == 31) ? x[i + 1] : next_in_warp;
        }
        d[i] = nxt - v;
    }
}

void launch_diff(const float* x, float* d, int n) {
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    diff_shfl_kernel<<<blocks, BLOCK_SIZE>>>(x, d, n);
}
