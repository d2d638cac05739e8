#include <cuda_runtime.h>
#include <float.h>

#define BLOCK_SIZE 512
#define MAX_BLOCKS 256

// Pass 1: each block reduces a grid-stride slice to one maximum.
__global__ void max_partial_kernel(const float* __restrict__ input, float* __restrict__ block_max, int n) {
    __shared__ float smax[BLOCK_SIZE];
    const int tid = threadIdx.x;

    float m = -FLT_MAX;
    for (int i = blockIdx.x * BLOCK_SIZE + tid; i < n; i += BLOCK_SIZE * gridDim.x) {
        m = fmaxf(m, input[i]);
    }
    smax[tid] = m;
    __syncthreads();

    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) {
            smax[tid] = fmaxf(smax[tid], smax[tid + s]);
        }
        __syncthreads();
    }
    if (tid == 0) block_max[blockIdx.x] = smax[0];
}

// Pass 2: a single block reduces the per-block maxima.
__global__ void max_final_kernel(const float* __restrict__ block_max, float* __restrict__ result, int num_blocks) {
    __shared__ float smax[BLOCK_SIZE];
    const int tid = threadIdx.x;

    float m = -FLT_MAX;
    for (int i = tid; i < num_blocks; i += BLOCK_SIZE) {
        m = fmaxf(m, block_max[i]);
    }
    smax[tid] = m;
    __syncthreads();

    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) {
            smax[tid] = fmaxf(smax[tid], smax[tid + s]);
        }
        __syncthreads();
    }
    if (tid == 0) *result = smax[0];
}

void launch_max(const float* input, float* block_max, float* result, int n) {
    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    max_partial_kernel<<<blocks, BLOCK_SIZE>>>(input, block_max, n);
    max_final_kernel<<<1, BLOCK_SIZE>>>(block_max, result, blocks);
}
