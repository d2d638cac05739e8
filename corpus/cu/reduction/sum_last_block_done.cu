#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__device__ unsigned int g_blocks_done = 0;

// Single-pass sum: every block writes a partial, the last block to finish
// reduces all partials. isLast lives in shared memory and is uniform per block.
__global__ void sum_single_pass_kernel(const float* __restrict__ x,
                                       float* __restrict__ partials,
                                       float* __restrict__ result,
                                       int n) {
    __shared__ float sdata[BLOCK_SIZE];
    __shared__ bool is_last;
    const int tid = threadIdx.x;
    const int i = blockIdx.x * BLOCK_SIZE + tid;

    sdata[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid == 0) {
        partials[blockIdx.x] = sdata[0];
        __threadfence();
        unsigned int ticket = atomicInc(&g_blocks_done, gridDim.x);
        is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();

    if (is_last) {
        float acc = 0.0f;
        for (int j = tid; j < gridDim.x; j += BLOCK_SIZE) {
            acc += partials[j];
        }
        sdata[tid] = acc;
        __syncthreads();
        for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
            if (tid < s) sdata[tid] += sdata[tid + s];
            __syncthreads();
        }
        if (tid == 0) {
            *result = sdata[0];
            g_blocks_done = 0;
        }
    }
}

void launch_sum_single_pass(const float* x, float* partials, float* result, int n) {
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    sum_single_pass_kernel<<<blocks, BLOCK_SIZE>>>(x, partials, result, n);
}
