#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Inclusive scan within each block (Hillis & Steele)
__global__ void hs_scan_kernel(const float* __restrict__ input, float* __restrict__ output, int n) {
    __shared__ float temp[BLOCK_SIZE];

    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;

    temp[tid] = (gid < n) ? input[gid] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        float val = 0.0f;
        if (tid >= offset) {
            // expect: CL101
            val = temp[tid - offset];
        }
        __syncthreads();
        temp[tid] += val;
    }

    if (gid < n) {
        output[gid] = temp[tid];
    }
}

void launch_hs_scan(const float* input, float* output, int n) {
    int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    hs_scan_kernel<<<blocks, threads>>>(input, output, n);
}
