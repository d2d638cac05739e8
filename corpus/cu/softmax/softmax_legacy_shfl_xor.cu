#include <cuda_runtime.h>
#include <math.h>

#define WARP_SIZE 32

// Warp-per-row softmax for rows of up to 1024 elements
__global__ void warp_softmax_kernel(const float* __restrict__ src, float* __restrict__ dst,
                                    int rows, int cols) {
    const int row = blockIdx.x * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;

    const float* in = src + (size_t)row * cols;
    float* out = dst + (size_t)row * cols;

    float vmax = -INFINITY;
    for (int c = lane; c < cols; c += WARP_SIZE) vmax = fmaxf(vmax, in[c]);
    for (int mask = 16; mask > 0; mask >>= 1) {
        // expect: CL103
        vmax = fmaxf(vmax, __shfl_xor(vmax, mask));
    }

    float vsum = 0.0f;
    for (int c = lane; c < cols; c += WARP_SIZE) vsum += expf(in[c] - vmax);
    for (int mask = 16; mask > 0; mask >>= 1) {
        // expect: CL103
        vsum += __shfl_xor(vsum, mask);
    }

    for (int c = lane; c < cols; c += WARP_SIZE) out[c] = expf(in[c] - vmax) / vsum;
}

void launch_warp_softmax(const float* src, float* dst, int rows, int cols) {
    const int threads = 256;
    const int rows_per_block = threads / WARP_SIZE;
    const int blocks = (rows + rows_per_block - 1) / rows_per_block;
    warp_softmax_kernel<<<blocks, threads>>>(src, dst, rows, cols);
}
