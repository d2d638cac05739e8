#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define MAX_BLOCKS 1024

// Classic shared-memory tree reduction. Each block accumulates a grid-stride
// slice and writes one partial sum; a second single-block launch reduces the partials.
__global__ void sum_reduce_kernel(const float* __restrict__ input,
                                  float* __restrict__ output,
                                  int n) {
    __shared__ float sdata[BLOCK_SIZE];

    const unsigned int tid = threadIdx.x;

    float v = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        v += input[i];
    }
    sdata[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }

    if (tid == 0) {
        output[blockIdx.x] = sdata[0];
    }
}

// partials must hold at least MAX_BLOCKS floats, out one float
void launch_sum(const float* input, float* partials, float* out, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    if (blocks > MAX_BLOCKS) blocks = MAX_BLOCKS;
    sum_reduce_kernel<<<blocks, threads>>>(input, partials, n);
    sum_reduce_kernel<<<1, threads>>>(partials, out, blocks);
}
