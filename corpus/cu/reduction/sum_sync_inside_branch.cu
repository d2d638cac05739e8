#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Block-level sum of absolute values (L1 norm partials)
__global__ void l1_norm_kernel(const float* __restrict__ x, float* __restrict__ partial, int n) {
    __shared__ float cache[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const int gid = blockIdx.x * blockDim.x + tid;

    cache[tid] = (gid < n) ? fabsf(x[gid]) : 0.0f;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            cache[tid] += cache[tid + s];
            // expect: CL102
            __syncthreads();
        }
    }

    if (tid == 0) {
        partial[blockIdx.x] = cache[0];
    }
}

void launch_l1_norm(const float* x, float* partial, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    l1_norm_kernel<<<blocks, threads>>>(x, partial, n);
}
