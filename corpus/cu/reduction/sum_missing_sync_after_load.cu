#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Parallel sum reduction, one partial per block
__global__ void reduce_sum_kernel(const float* __restrict__ input, float* __restrict__ output, int n) {
    __shared__ float sdata[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;

    // Load input into shared memory
    sdata[tid] = (idx < n) ? input[idx] : 0.0f;

    // Tree reduction in shared memory
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            // expect: CL101
            sdata[tid] += sdata[tid + stride];
        }
        __syncthreads();
    }

    if (tid == 0) {
        atomicAdd(output, sdata[0]);
    }
}

void launch_reduce_sum(const float* input, float* output, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    cudaMemset(output, 0, sizeof(float));
    reduce_sum_kernel<<<blocks, threads>>>(input, output, n);
}
