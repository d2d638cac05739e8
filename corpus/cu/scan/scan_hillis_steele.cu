#include <cuda_runtime.h>

#define BLOCK_SIZE 512

// Per-block inclusive prefix sum (Hillis-Steele). Each block scans its own segment of
// BLOCK_SIZE elements independently (segmented scan).
__global__ void inclusive_scan_block_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float temp[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const int gid = blockIdx.x * BLOCK_SIZE + tid;

    temp[tid] = (gid < n) ? in[gid] : 0.0f;
    __syncthreads();

    for (int offset = 1; offset < BLOCK_SIZE; offset <<= 1) {
        float addend = 0.0f;
        if (tid >= offset) {
            addend = temp[tid - offset];
        }
        __syncthreads();   // all reads of this step done before anyone writes
        temp[tid] += addend;
        __syncthreads();   // all writes done before the next step reads
    }

    if (gid < n) {
        out[gid] = temp[tid];
    }
}

void launch_segmented_scan(const float* in, float* out, int n) {
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    inclusive_scan_block_kernel<<<blocks, BLOCK_SIZE>>>(in, out, n);
}
