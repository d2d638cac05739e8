#include <cuda_runtime.h>

#define BLOCK_SIZE 512

// Block-level inclusive prefix sum of integers
__global__ void prefix_sum_kernel(const int* __restrict__ in, int* __restrict__ out, int n) {
    __shared__ int sh[BLOCK_SIZE];
    const int tid = threadIdx.x;
    const int gid = blockIdx.x * BLOCK_SIZE + tid;

    sh[tid] = (gid < n) ? in[gid] : 0;
    __syncthreads();

    for (int offset = 1; offset < BLOCK_SIZE; offset <<= 1) {
        if (tid >= offset) {
            int left = sh[tid - offset];
            // expect: CL102
            __syncthreads();
            sh[tid] += left;
        }
        __syncthreads();
    }

    if (gid < n) out[gid] = sh[tid];
}

void launch_prefix_sum(const int* in, int* out, int n) {
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    prefix_sum_kernel<<<blocks, BLOCK_SIZE>>>(in, out, n);
}
