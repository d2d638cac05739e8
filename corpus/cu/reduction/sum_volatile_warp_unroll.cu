#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Last-warp unrolled reduction (relies on warp-synchronous execution)
__device__ void warpReduce(volatile float* sdata, int tid) {
    sdata[tid] += sdata[tid + 32];
    // expect: CL103
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

__global__ void reduce6_kernel(const float* __restrict__ g_idata, float* __restrict__ g_odata, int n) {
    __shared__ float sdata[BLOCK_SIZE];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * (blockDim.x * 2) + tid;

    float v = 0.0f;
    if (i < n) v = g_idata[i];
    if (i + blockDim.x < n) v += g_idata[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }

    if (tid < 32) warpReduce(sdata, tid);
    if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

void launch_reduce6(const float* in, float* out, int n) {
    const int threads = BLOCK_SIZE;
    const int blocks = (n + threads * 2 - 1) / (threads * 2);
    reduce6_kernel<<<blocks, threads>>>(in, out, n);
}
