#include <cuda_runtime.h>

#define MAX_THREADS 1024

// Per-block partial sums. The shared buffer and the tree are written for 1024 threads, but the launch
// uses 256: the first three steps read sdata[256..1023], which no thread stored.
__global__ void partial_sum_kernel(const float* __restrict__ x, float* __restrict__ partials, int n) {
    __shared__ float sdata[MAX_THREADS];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? x[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = MAX_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            // expect: CL210
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = sdata[0];
}

void partial_sum(const float* x, float* partials, int n) {
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    partial_sum_kernel<<<blocks, threads>>>(x, partials, n);
}
