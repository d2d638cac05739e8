#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Sum of squares per block. Block 0 additionally reduces the (short) bias
// vector into *bias_sum; the barriers inside the blockIdx branch are uniform
// across the block, so every thread of block 0 reaches them.
__global__ void sum_squares_kernel(const float* __restrict__ x,
                                   const float* __restrict__ bias,
                                   float* __restrict__ block_sums,
                                   float* __restrict__ bias_sum,
                                   int n, int bias_len) {
    __shared__ float sdata[BLOCK_SIZE];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * BLOCK_SIZE + tid;

    if (blockIdx.x == 0) {
        sdata[tid] = (tid < bias_len) ? bias[tid] : 0.0f;
        __syncthreads();
        for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
            if (tid < s) {
                sdata[tid] += sdata[tid + s];
            }
            __syncthreads();
        }
        if (tid == 0) *bias_sum = sdata[0];
        __syncthreads();
    }

    const float v = (i < n) ? x[i] : 0.0f;
    sdata[tid] = v * v;
    __syncthreads();

    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) block_sums[blockIdx.x] = sdata[0];
}

// bias_len must be <= BLOCK_SIZE
void launch_sum_squares(const float* x, const float* bias, float* block_sums, float* bias_sum,
                        int n, int bias_len) {
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    sum_squares_kernel<<<blocks, BLOCK_SIZE>>>(x, bias, block_sums, bias_sum, n, bias_len);
}
