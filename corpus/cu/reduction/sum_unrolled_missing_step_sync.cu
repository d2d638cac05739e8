#include <cuda_runtime.h>

#define BLOCK_SIZE 256

__device__ __forceinline__ float warp_sum(float v) {
    v += __shfl_down_sync(0xffffffff, v, 16);
    v += __shfl_down_sync(0xffffffff, v, 8);
    v += __shfl_down_sync(0xffffffff, v, 4);
    v += __shfl_down_sync(0xffffffff, v, 2);
    v += __shfl_down_sync(0xffffffff, v, 1);
    return v;
}

// Fully unrolled block reduction for 256 threads
__global__ void sum_unrolled_kernel(const float* __restrict__ in, float* __restrict__ block_out, int n) {
    __shared__ float sdata[BLOCK_SIZE];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * (BLOCK_SIZE * 2) + tid;

    // each thread adds two elements while loading
    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + BLOCK_SIZE < n) v += in[i + BLOCK_SIZE];
    sdata[tid] = v;
    __syncthreads();

    if (tid < 128) sdata[tid] += sdata[tid + 128];
    __syncthreads();
    if (tid < 64) sdata[tid] += sdata[tid + 64];
    if (tid < 32) {
        // expect: CL101
        float s = sdata[tid] + sdata[tid + 32];
        s = warp_sum(s);
        if (tid == 0) block_out[blockIdx.x] = s;
    }
}

void launch_sum_unrolled(const float* in, float* block_out, int n) {
    const int threads = BLOCK_SIZE;
    const int blocks = (n + threads * 2 - 1) / (threads * 2);
    sum_unrolled_kernel<<<blocks, threads>>>(in, block_out, n);
}
