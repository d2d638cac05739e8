#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Mean reduction: block partial sums scaled by 1/n, accumulated atomically
__global__ void mean_reduce_kernel(const float* __restrict__ input, float* __restrict__ mean, int n) {
    __shared__ float sdata[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const int idx = blockIdx.x * blockDim.x + tid;
    if (idx >= n) return;

    sdata[tid] = input[idx];
    // expect: CL102
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s && idx + s < n) {
            sdata[tid] += sdata[tid + s];
        }
        // expect: CL102
        __syncthreads();
    }

    if (tid == 0) {
        atomicAdd(mean, sdata[0] / (float)n);
    }
}

void launch_mean(const float* input, float* mean, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    cudaMemset(mean, 0, sizeof(float));
    mean_reduce_kernel<<<blocks, threads>>>(input, mean, n);
}
