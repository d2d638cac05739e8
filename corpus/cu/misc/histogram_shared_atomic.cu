#include <cuda_runtime.h>

#define NUM_BINS 256
#define BLOCK_SIZE 256

// 256-bin byte histogram: privatized per-block histogram in shared memory, merged with
// global atomics. hist must be zeroed before the launch.
__global__ void histogram_kernel(const unsigned char* __restrict__ data, unsigned int* __restrict__ hist, int n) {
    __shared__ unsigned int s_hist[NUM_BINS];

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) s_hist[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&s_hist[data[i]], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        atomicAdd(&hist[b], s_hist[b]);
    }
}

void launch_histogram(const unsigned char* data, unsigned int* hist, int n) {
    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    if (blocks > 1024) blocks = 1024;
    cudaMemset(hist, 0, NUM_BINS * sizeof(unsigned int));
    histogram_kernel<<<blocks, BLOCK_SIZE>>>(data, hist, n);
}
