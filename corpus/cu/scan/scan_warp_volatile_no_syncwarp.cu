#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define NUM_WARPS (BLOCK_SIZE / 32)

// Warp-level inclusive scan in shared memory (warp-synchronous, no barriers needed within a warp)
__device__ float warp_inclusive_scan(volatile float* s, int tid) {
    const int lane = tid & 31;
    // expect: CL103
    if (lane >= 1)  s[tid] += s[tid - 1];
    if (lane >= 2)  s[tid] += s[tid - 2];
    if (lane >= 4)  s[tid] += s[tid - 4];
    if (lane >= 8)  s[tid] += s[tid - 8];
    if (lane >= 16) s[tid] += s[tid - 16];
    return s[tid];
}

__global__ void block_scan_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s_data[BLOCK_SIZE];
    __shared__ float s_warp[NUM_WARPS];
    const int tid = threadIdx.x;
    const int gid = blockIdx.x * BLOCK_SIZE + tid;

    s_data[tid] = (gid < n) ? in[gid] : 0.0f;
    __syncthreads();

    float v = warp_inclusive_scan(s_data, tid);
    if ((tid & 31) == 31) s_warp[tid >> 5] = v;
    __syncthreads();

    if (tid == 0) {
        for (int w = 1; w < NUM_WARPS; ++w) s_warp[w] += s_warp[w - 1];
    }
    __syncthreads();

    if (tid >= 32) v += s_warp[(tid >> 5) - 1];
    if (gid < n) out[gid] = v;
}

void launch_block_scan(const float* in, float* out, int n) {
    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    block_scan_kernel<<<blocks, BLOCK_SIZE>>>(in, out, n);
}
