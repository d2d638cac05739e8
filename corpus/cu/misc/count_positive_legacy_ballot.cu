#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Count elements > threshold using warp vote: one atomic per warp instead of per thread
__global__ void count_above_kernel(const float* __restrict__ x, unsigned int* count, float threshold, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const bool pred = (i < n) ? (x[i] > threshold) : false;

    // expect: CL103
    const unsigned int votes = __ballot(pred);
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(count, (unsigned int)__popc(votes));
    }
}

void launch_count_above(const float* x, unsigned int* count, float threshold, int n) {
    cudaMemset(count, 0, sizeof(unsigned int));
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    count_above_kernel<<<blocks, BLOCK_SIZE>>>(x, count, threshold, n);
}
